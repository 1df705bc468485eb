/**
 * A SIM's page (sim/detail?iccid=&tab=, highlighting All SIMs): the lifecycle actions the role may use and, for admins,
 * its device name, notes and tags above the tabs of src/custom/sim-detail; the Basic tab holds the sections of
 * schemas/sims.json.
 */
import { EditOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { RESOURCES } from '../../../common/resource-registry';
import { SimTabs } from './sim-tabs';
import { currentAbility } from '../../shell/ability';
import { FieldsDialog } from '../../resources/fields-dialog';
import { ResourceShowPage, usePageAddress } from '../../resources/resource-show-page';
import { SimActions } from '../sim/sim-actions';

const EDITS = [
  { field: 'deviceName', call: 'POST /api/main/sim/deviceName', label: 'sims.editDevice' },
  { field: 'notes', call: 'POST /api/main/device/saveNote', label: 'sims.editNotes' },
  { field: 'tags', call: 'POST /api/main/device/saveTag', label: 'sims.editTags' },
] as const;

export function SimDetailPage() {
  const { t } = useTranslation();
  const { navigate, lang, id: iccid } = usePageAddress('iccid');
  const [editing, setEditing] = useState<{ edit: (typeof EDITS)[number]; record: Record<string, unknown> } | null>(null);
  const [version, setVersion] = useState(0);
  // After a lifecycle action every tab reads its call again (connection, events, diagnose change with the state);
  // the open tab stays, as it lives in the address.
  const [acted, setActed] = useState(0);
  const mayEdit = currentAbility().can('editInfo', 'sim');
  return (
    <>
      <ResourceShowPage
        key={version}
        resource={RESOURCES.sims}
        id={iccid}
        title={`${t('sims.detail')} ${iccid}`}
        onBack={() => navigate(`/${lang}/sim/simCard`)}
        wrap={(sections) => <SimTabs key={acted} iccid={iccid} basic={sections} />}
        extra={(record, reload) => (
          <>
            <SimActions
              ticked={[iccid]}
              done={() => {
                reload();
                setActed((n) => n + 1);
              }}
              sim={record as never}
            />
            {mayEdit &&
              EDITS.map((e) => (
                <Button key={e.field} icon={<EditOutlined />} onClick={() => setEditing({ edit: e, record })}>
                  {t(e.label)}
                </Button>
              ))}
          </>
        )}
      />
      {editing && (
        <FieldsDialog
          resource={RESOURCES.sims}
          fields={[editing.edit.field]}
          call={editing.edit.call}
          extra={{ iccid }}
          title={t(editing.edit.label)}
          initial={{ [editing.edit.field]: editing.record[editing.edit.field] ?? (editing.edit.field === 'tags' ? [] : undefined) }}
          done={() => t('sims.saved')}
          onClose={(saved) => {
            setEditing(null);
            if (saved) setVersion((v) => v + 1);
          }}
        />
      )}
    </>
  );
}
