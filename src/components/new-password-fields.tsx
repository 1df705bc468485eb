import { Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { isValidPassword } from '../../common/limits';

/** New password and its confirmation, with SPEC.md's password rule and "Two passwords don't match!". */
export function NewPasswordFields() {
  const { t } = useTranslation();
  return (
    <>
      <Form.Item
        name="password"
        label={t('forgot.newPassword')}
        rules={[{ validator: (_, v) => (isValidPassword(v ?? '') ? Promise.resolve() : Promise.reject(new Error(t('rules.password')))) }]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
      <Form.Item
        name="confirm"
        label={t('forgot.confirm')}
        dependencies={['password']}
        rules={[
          { required: true, message: t('forgot.confirmRequired') },
          ({ getFieldValue }) => ({
            validator: (_, v) => (v === getFieldValue('password') ? Promise.resolve() : Promise.reject(new Error(t('rules.passwordMismatch')))),
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" />
      </Form.Item>
    </>
  );
}
