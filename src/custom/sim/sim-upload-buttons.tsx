/**
 * SIM transfer and batch info upload from the SIM list (SPEC.md section 8, Transfer and upload). Both dialogs: a
 * template to download, a file checked at once in the browser (type, a name under 40 characters, 1 MB) and then by
 * the server, which says what each row would do before anything changes; the submission becomes a task of the task
 * center, whose report lists every row. Transfer also asks for the receiving organisation (one where the person is
 * an admin) and an acknowledgement. Non-admins see the upload button but are told "Insufficient permission".
 */
import { CloudUploadOutlined, SwapOutlined } from '@ant-design/icons';
import { App, Button } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentAbility } from '../../shell/ability';
import { InfoDialog } from './sim-info-dialog';
import { TransferDialog } from './sim-transfer-dialog';

/** The SIM list's Transfer (admins only) and Info upload (everyone sees it; non-admins are told they may not). */
export function SimUploadButtons() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const [open, setOpen] = useState<'transfer' | 'info' | null>(null);
  const ability = currentAbility();
  return (
    <>
      {ability.can('transfer', 'sim') && (
        <Button icon={<SwapOutlined />} onClick={() => setOpen('transfer')}>
          {t('simUpload.transfer')}
        </Button>
      )}
      <Button
        icon={<CloudUploadOutlined />}
        onClick={() => (ability.can('uploadInfo', 'sim') ? setOpen('info') : void message.warning(t('simUpload.insufficient')))}
      >
        {t('simUpload.info')}
      </Button>
      {open === 'transfer' && <TransferDialog open onClose={() => setOpen(null)} />}
      {open === 'info' && <InfoDialog open onClose={() => setOpen(null)} />}
    </>
  );
}
