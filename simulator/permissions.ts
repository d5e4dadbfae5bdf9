/** The permission types the simulator knows, with what each allows. */
export const PERMISSIONS = {
  'inventory.view': 'View resources, snapshots and source and restore accounts',
  'jobs.view': 'View backup and restore jobs',
  'snapshots.take_or_convert': 'Take on-demand snapshots',
  'resources.restore': 'Restore resources and buckets',
  'files.restore': 'Restore files',
  'databases.query': 'Run queries on database snapshots',
  'vaults.manage': 'Create, rename and list vaults',
  'source_accounts.manage': 'Connect, change, disconnect and delete source accounts',
  'restore_accounts.manage': 'Manage restore accounts',
  'api_credentials.rotate_secret': 'Rotate API credential secrets',
  'cost_explorer.view': 'Read cost data',
  'mpa_requests.manage': 'Read, submit and cancel own action requests',
  'roles.manage': 'Create, change and delete roles',
  'idp_groups.manage': 'Map identity-provider groups to roles',
} as const;

export type PermissionType = keyof typeof PERMISSIONS;
export const ALL_PERMISSIONS = Object.keys(PERMISSIONS) as PermissionType[];
