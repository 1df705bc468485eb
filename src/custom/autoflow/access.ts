/** Whether the signed-in role may write automation rules (the autoflow write resource, SPEC.md section 6). */
import { currentAbility } from '../../shell/ability';

export const canWrite = (action: 'create' | 'update' | 'delete') => currentAbility().can(action, 'autoflow-cube');
