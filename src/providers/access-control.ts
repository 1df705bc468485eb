/** Refine access control: a thin wrapper over the CASL rules the server sent (the server enforces them again). */
import type { AccessControlProvider } from '@refinedev/core';
import { currentAbility } from '../shell/ability';

export const accessControlProvider: AccessControlProvider = {
  can: async ({ resource, action, params }) => {
    const subject = (params?.resource?.meta?.subject as string | undefined) ?? resource ?? '';
    const verb = action === 'list' || action === 'show' ? 'read' : action === 'edit' ? 'update' : action;
    return { can: currentAbility().can(verb, subject) };
  },
  options: { buttons: { enableAccessControl: true, hideIfUnauthorized: true } },
};
