import { parseDeviceGroup } from '../reading.js';

/** What the permission rules read from a connection's access token. */
export interface PermissionClaims {
  readonly roles: readonly string[];
  readonly tenantId: string | undefined;
}

/**
 * Joining or leaving a group: the service's roles (`webpubsub.joinLeaveGroup` for any group,
 * `webpubsub.joinLeaveGroup.{group}` for one), plus the hub's rule that a token may always follow
 * the device groups of its own tenant (`device:{tenant_id}:{deviceId}`).
 */
export function canJoinLeaveGroup(claims: PermissionClaims, group: string): boolean {
  if (hasGroupRole(claims.roles, 'webpubsub.joinLeaveGroup', group)) return true;
  const device = parseDeviceGroup(group);
  return device !== null && claims.tenantId !== undefined && device.tenantId === claims.tenantId;
}

/** Publishing to a group needs `webpubsub.sendToGroup` or `webpubsub.sendToGroup.{group}`. */
export function canSendToGroup(claims: PermissionClaims, group: string): boolean {
  return hasGroupRole(claims.roles, 'webpubsub.sendToGroup', group);
}

function hasGroupRole(roles: readonly string[], role: string, group: string): boolean {
  return roles.includes(role) || roles.includes(`${role}.${group}`);
}
