import { z } from 'zod';
import { TokenProvider, type Credentials, type CredentialsSource, type TokenEndpoint } from './auth';
import { ServiceCaller, type Call } from './caller';
import type { Dialect, DialectSetting } from './dialect';
import { detectDialect } from './dialect-detection';
import { InvalidResponseError } from './errors';
import { HttpTransport, pathOf, type HttpOptions } from './http';
import { itemsOf, pagesOf, trailingToken, type ListOptions, type Page } from './paging';
import { registerSecret } from './redact';
import * as s from './schemas';
import type { OffsetBounds } from './service-clock';
import { requireId, validate } from './validate';
import { BODY_RULES, bodyIn, needsDialect, prepareBody, type PreparedBody } from './wire';

export type { ListOptions };

export interface ClientOptions extends HttpOptions {
  projectId: string;
  credentials: Credentials;
  tokenEndpoint?: TokenEndpoint;
  /** Where to re-read the credentials when a new token is needed (a file that rotations rewrite). */
  credentialsSource?: CredentialsSource;
  /** Shares a token provider between clients (and lets a rotation reach every one of them). */
  tokenProvider?: TokenProvider;
  /**
   * The dialect request bodies are sent in: `neutral` (the project's own vocabulary), `public` (the real service's
   * document), or `auto` (the default): detected from the token answer, else from a first listing.
   */
  dialect?: DialectSetting;
  /** Told once which dialect the client speaks and how that was decided (`configured`, `from the token answer`, …). */
  onDialect?: (dialect: Dialect, how: string) => void;
}

/** A protected call either starts at once or needs an approved action request first. */
export type ProtectedCallResult =
  { kind: 'started'; jobId: string } | { kind: 'approvalRequired'; request: s.MpaRequest };

type ItemOf<L> = L extends readonly (infer T)[] ? T : never;

const Empty = z.unknown();

/** Typed client for every call of the Backup Management Service. */
export class BackupServiceClient {
  readonly projectId: string;
  readonly tokens: TokenProvider;
  private readonly caller: ServiceCaller;
  private readonly dialectSetting: DialectSetting;
  private readonly onDialect?: (dialect: Dialect, how: string) => void;
  private dialect?: Dialect;

  constructor(options: ClientOptions) {
    this.projectId = requireId(options.projectId, 'projectId');
    this.dialectSetting = options.dialect ?? 'auto';
    this.onDialect = options.onDialect;
    const transport = new HttpTransport(options);
    this.tokens =
      options.tokenProvider ??
      new TokenProvider({
        transport,
        credentials: options.credentials,
        source: options.credentialsSource,
        endpoint: options.tokenEndpoint,
      });
    this.caller = new ServiceCaller(transport, this.tokens);
  }

  /** Now on the service's clock, from the `Date` header of its last answer (see `ServiceCaller.serviceNow`). */
  serviceNow(): number {
    return this.caller.serviceNow();
  }

  /** The service's clock minus ours, within bounds its answers have narrowed (see api/service-clock.ts). */
  serviceOffsetBounds(): OffsetBounds | undefined {
    return this.caller.serviceOffsetBounds();
  }

  /**
   * The dialect this client sends request bodies in: the configured one, or with `auto` the one detected from the
   * service's answers (once for every client sharing the token provider). `onDialect` hears of it once.
   */
  async wireDialect(): Promise<Dialect> {
    if (this.dialect) return this.dialect;
    const { dialect, how } =
      this.dialectSetting === 'auto'
        ? await this.tokens.detectDialect(() => detectDialect(this.tokens, this.caller, this.project``))
        : { dialect: this.dialectSetting, how: 'configured' };
    if (!this.dialect) {
      this.dialect = dialect;
      this.onDialect?.(dialect, how);
    }
    return dialect;
  }

  /**
   * A body checked as far as it can be before any call (`prepareBody`), in the wire's dialect: when its form depends
   * on the dialect, renamed to the wire's and refused if that dialect cannot say it.
   */
  private async sendable(prepared: PreparedBody): Promise<unknown> {
    if (!needsDialect(prepared)) return prepared.neutral;
    return bodyIn(await this.wireDialect(), prepared);
  }

  private async data<S extends z.ZodType>(call: Call<S>): Promise<z.output<S>> {
    return (await this.caller.call(call)).data;
  }

  private project(strings: TemplateStringsArray, ...params: string[]): string {
    return pathOf`/v1/projects/${this.projectId}` + pathOf(strings, ...params);
  }

  /**
   * One page of a POST list call, with the body checked and the paging parameters in the query. An undefined body
   * sends none: the vault, role, IdP and IdP-group lists declare no body, and a strict service refuses one with 415.
   */
  private async listPage<S extends z.ZodType>(
    path: string,
    schema: S,
    body: PreparedBody | undefined,
    page: ListOptions,
    extra = {},
  ) {
    const { pageSize, pageToken } = validate(s.PageParams, page, 'page');
    const json = body && (await this.sendable(body));
    return this.data({ method: 'POST', path, json, query: { pageSize, pageToken, ...extra }, ok: [200], schema });
  }

  /** Every item of a `…Page` method, from the list each page holds under `key`. */
  private all<K extends PropertyKey, P extends Page & Record<K, readonly unknown[]>>(
    key: K,
    options: ListOptions,
    fetchPage: (page: ListOptions) => Promise<P>,
  ): AsyncGenerator<ItemOf<P[K]>> {
    return itemsOf(pagesOf(fetchPage, options), (page) => page[key] as readonly ItemOf<P[K]>[]);
  }

  // 4.1 Credentials

  async rotateCredentials(clientId: string): Promise<s.ApiCredentials> {
    const path = pathOf`/v1/api-credentials/${requireId(clientId, 'clientId')}/rotate`;
    return keepSecret(await this.data({ method: 'POST', path, ok: [200], schema: s.ApiCredentials }));
  }

  /** Rotates the credentials behind the token in use. */
  async rotateCurrentCredentials(): Promise<s.ApiCredentials> {
    const path = '/v1/api-credentials/current/rotate';
    return keepSecret(await this.data({ method: 'POST', path, ok: [200], schema: s.ApiCredentials }));
  }

  // 4.2 Roles, permissions, identity providers

  async createRole(input: s.RoleInput): Promise<s.Role> {
    const json = await this.sendable(prepareBody(BODY_RULES.role, input, 'role'));
    return (await this.data({ method: 'POST', path: '/v1/roles', json, ok: [201], schema: s.RoleBody })).role;
  }
  async listPermissions(): Promise<s.Permission[]> {
    return (await this.data({ method: 'GET', path: '/v1/permissions', ok: [200], schema: s.PermissionList }))
      .permissions;
  }
  async getRole(roleId: string): Promise<s.Role> {
    const path = pathOf`/v1/roles/${requireId(roleId, 'roleId')}`;
    return (await this.data({ method: 'GET', path, ok: [200], schema: s.RoleBody })).role;
  }
  async updateRole(roleId: string, input: s.RoleInput): Promise<s.Role> {
    const path = pathOf`/v1/roles/${requireId(roleId, 'roleId')}`;
    const json = await this.sendable(prepareBody(BODY_RULES.role, input, 'role'));
    return (await this.data({ method: 'PUT', path, json, ok: [200], schema: s.RoleBody })).role;
  }
  async deleteRole(roleId: string): Promise<void> {
    const path = pathOf`/v1/roles/${requireId(roleId, 'roleId')}`;
    await this.data({ method: 'DELETE', path, ok: [204, 200], schema: Empty });
  }
  async listRolesPage(page: ListOptions = {}) {
    return this.listPage('/v1/roles/list', s.RolePage, undefined, page);
  }
  listRoles(options: ListOptions = {}): AsyncGenerator<s.Role> {
    return this.all('roles', options, (p) => this.listRolesPage(p));
  }
  async listIdpsPage(page: ListOptions = {}) {
    return this.listPage('/v1/idps/list', s.IdpPage, undefined, page);
  }
  listIdps(options: ListOptions = {}): AsyncGenerator<s.IdentityProvider> {
    return this.all('idps', options, (p) => this.listIdpsPage(p));
  }
  async createIdpGroup(input: s.IdpGroupInput): Promise<s.IdpGroup> {
    const json = validate(s.IdpGroupInput, input, 'group');
    return (await this.data({ method: 'POST', path: '/v1/idp-groups', json, ok: [201], schema: s.IdpGroupBody })).group;
  }
  async getIdpGroup(groupId: string): Promise<s.IdpGroup> {
    const path = pathOf`/v1/idp-groups/${requireId(groupId, 'groupId')}`;
    return (await this.data({ method: 'GET', path, ok: [200], schema: s.IdpGroupBody })).group;
  }
  /** Replaces the group's whole role list. */
  async updateIdpGroup(groupId: string, input: s.IdpGroupUpdate): Promise<s.IdpGroup> {
    const path = pathOf`/v1/idp-groups/${requireId(groupId, 'groupId')}`;
    const json = validate(s.IdpGroupUpdate, input, 'group');
    return (await this.data({ method: 'PUT', path, json, ok: [200], schema: s.IdpGroupBody })).group;
  }
  async deleteIdpGroup(groupId: string): Promise<void> {
    const path = pathOf`/v1/idp-groups/${requireId(groupId, 'groupId')}`;
    await this.data({ method: 'DELETE', path, ok: [204, 200], schema: Empty });
  }
  async listIdpGroupsPage(page: ListOptions = {}) {
    return this.listPage('/v1/idp-groups/list', s.IdpGroupPage, undefined, page);
  }
  listIdpGroups(options: ListOptions = {}): AsyncGenerator<s.IdpGroup> {
    return this.all('groups', options, (p) => this.listIdpGroupsPage(p));
  }

  // 4.3 Action requests of the caller

  async getActionRequest(requestId: string): Promise<s.MpaRequest> {
    const path = this.project`/action-approvals/my-requests/${requireId(requestId, 'requestId')}`;
    return this.data({ method: 'GET', path, ok: [200], schema: s.MpaRequestRead });
  }
  /** CONFIRM submits the request for approval; DISCARD abandons it. */
  async submitActionRequest(requestId: string, input: s.SubmitActionInput): Promise<s.MpaRequest | undefined> {
    const path = this.project`/action-approvals/my-requests/${requireId(requestId, 'requestId')}/submit`;
    const json = validate(s.SubmitActionInput, input, 'submit');
    return (
      (await this.data({ method: 'POST', path, json, ok: [200], schema: s.SubmitActionResult }))
        .actionApprovalRequest ?? undefined
    );
  }
  /**
   * The canceled request; read back when the answer leaves it out (the public document lets it be null), and undefined
   * when the read holds none either: the cancel itself has succeeded, and no runbook reads its answer.
   */
  async cancelActionRequest(requestId: string): Promise<s.MpaRequest | undefined> {
    const path = this.project`/action-approvals/my-requests/${requireId(requestId, 'requestId')}`;
    const body = await this.data({ method: 'POST', path: `${path}/cancel`, ok: [200], schema: s.ActionRequestAnswer });
    return body.actionApprovalRequest ?? this.data({ method: 'GET', path, ok: [200], schema: s.MpaRequestAnswer });
  }

  // 4.4 Source accounts

  async connectSourceAccount(input: s.ConnectSourceAccountInput): Promise<s.SourceAccount> {
    const json = await this.sendable(prepareBody(BODY_RULES.connectSourceAccount, input, 'account'));
    const path = this.project`/source-accounts`;
    return (await this.data({ method: 'POST', path, json, ok: [200, 201], schema: s.SourceAccountBody })).sourceAccount;
  }
  async getSourceAccount(accountId: string): Promise<s.SourceAccount> {
    const path = this.project`/source-accounts/${requireId(accountId, 'accountId')}`;
    return (await this.data({ method: 'GET', path, ok: [200], schema: s.SourceAccountBody })).sourceAccount;
  }
  async updateSourceAccount(accountId: string, input: s.UpdateSourceAccountInput): Promise<s.SourceAccount> {
    const path = this.project`/source-accounts/${requireId(accountId, 'accountId')}`;
    const json = await this.sendable(prepareBody(BODY_RULES.updateSourceAccount, input, 'account'));
    return (await this.data({ method: 'PATCH', path, json, ok: [200], schema: s.SourceAccountBody })).sourceAccount;
  }
  async deleteSourceAccount(accountId: string): Promise<void> {
    const path = this.project`/source-accounts/${requireId(accountId, 'accountId')}`;
    await this.data({ method: 'DELETE', path, ok: [200, 204], schema: Empty });
  }
  async listSourceAccountsPage(input: s.AccountListInput = {}, page: ListOptions = {}) {
    const body = prepareBody(BODY_RULES.sourceAccountList, input, 'list');
    return this.listPage(this.project`/source-accounts/list`, s.SourceAccountPage, body, page);
  }
  listSourceAccounts(input: s.AccountListInput = {}, options: ListOptions = {}): AsyncGenerator<s.SourceAccount> {
    return this.all('accounts', options, (p) => this.listSourceAccountsPage(input, p));
  }
  async disconnectSourceAccount(accountId: string): Promise<s.SourceAccount> {
    const path = this.project`/source-accounts/${requireId(accountId, 'accountId')}/disconnect`;
    return (await this.data({ method: 'POST', path, ok: [200], schema: s.SourceAccountBody })).sourceAccount;
  }
  async reconnectSourceAccount(accountId: string): Promise<s.SourceAccount> {
    const path = this.project`/source-accounts/${requireId(accountId, 'accountId')}/reconnect`;
    return (await this.data({ method: 'POST', path, ok: [200], schema: s.SourceAccountBody })).sourceAccount;
  }

  // 4.5 Vaults

  async createVault(input: s.CreateVaultInput): Promise<s.Vault> {
    const json = await this.sendable(prepareBody(BODY_RULES.createVault, input, 'vault'));
    return (await this.data({ method: 'POST', path: this.project`/vaults`, json, ok: [201], schema: s.VaultBody }))
      .vault;
  }
  async getVault(vaultId: string): Promise<s.Vault> {
    const path = this.project`/vaults/${requireId(vaultId, 'vaultId')}`;
    return (await this.data({ method: 'GET', path, ok: [200], schema: s.VaultBody })).vault;
  }
  /** Only the display name of a vault can change. */
  async renameVault(vaultId: string, name: string): Promise<s.Vault> {
    const path = this.project`/vaults/${requireId(vaultId, 'vaultId')}`;
    const json = validate(s.RenameVaultInput, { name }, 'vault');
    return (await this.data({ method: 'PATCH', path, json, ok: [200], schema: s.VaultBody })).vault;
  }
  async listVaultsPage(page: ListOptions = {}) {
    return this.listPage(this.project`/vaults/list`, s.VaultPage, undefined, page);
  }
  listVaults(options: ListOptions = {}): AsyncGenerator<s.Vault> {
    return this.all('vaults', options, (p) => this.listVaultsPage(p));
  }

  // 4.6 Resources and snapshots

  async listResourcesPage(input: s.ResourceListInput = {}, page: ListOptions & { include?: string[] } = {}) {
    const include = page.include && validate(s.ResourceIncludes, page.include, 'include');
    const body = prepareBody(BODY_RULES.resourceList, input, 'list');
    return this.listPage(this.project`/resources`, s.ResourcePage, body, page, { include });
  }
  listResources(
    input: s.ResourceListInput = {},
    options: ListOptions & { include?: string[] } = {},
  ): AsyncGenerator<s.InventoryResource> {
    const fetch = (p: ListOptions) => this.listResourcesPage(input, { ...p, include: options.include });
    return this.all('resources', options, fetch);
  }
  async getResource(resourceId: string): Promise<s.InventoryResource> {
    const path = this.project`/resources/${requireId(resourceId, 'resourceId')}`;
    return (await this.data({ method: 'GET', path, ok: [200], schema: s.ResourceBody })).resource;
  }
  /** Starts a backup job. There is no idempotency key: each call starts a new job. */
  async takeSnapshot(resourceId: string, input: s.TakeSnapshotInput): Promise<string> {
    const path = this.project`/resources/${requireId(resourceId, 'resourceId')}/take-snapshot`;
    const json = validate(s.TakeSnapshotInput, input, 'snapshot');
    return (await this.data({ method: 'POST', path, json, ok: [202], schema: s.JobStarted })).jobId;
  }
  /** Starts a file restore job (never under an approval policy). */
  async restoreFiles(resourceId: string, snapshotId: string, input: s.RestoreFilesInput): Promise<string> {
    const path = this.snapshotPath(resourceId, snapshotId, 'restore-files');
    const json = await this.sendable(prepareBody(BODY_RULES.restoreFiles, input, 'restore'));
    return (await this.data({ method: 'POST', path, json, ok: [202], schema: s.JobStarted })).jobId;
  }
  /** Starts a bucket restore, or creates an action request when a policy protects it. */
  async restoreBucket(
    resourceId: string,
    snapshotId: string,
    input: s.RestoreBucketInput,
    options: { approvalRequestId?: string } = {},
  ): Promise<ProtectedCallResult> {
    const path = this.snapshotPath(resourceId, snapshotId, 'restore-bucket');
    const prepared = prepareBody(BODY_RULES.restoreBucket, input, 'restore');
    const { approvalRequestId } = options;
    if (approvalRequestId !== undefined) requireId(approvalRequestId, 'approvalRequestId');
    return this.protectedCall(path, await this.sendable(prepared), approvalRequestId);
  }
  async listSnapshotsPage(resourceId: string, input: s.SnapshotListInput = {}, page: ListOptions = {}) {
    const path = this.project`/resources/${requireId(resourceId, 'resourceId')}/snapshots`;
    return this.listPage(path, s.SnapshotPage, prepareBody(BODY_RULES.snapshotList, input, 'list'), page);
  }
  listSnapshots(resourceId: string, input: s.SnapshotListInput = {}, options: ListOptions = {}) {
    return this.all('snapshots', options, (p) => this.listSnapshotsPage(resourceId, input, p));
  }
  async getSnapshot(snapshotId: string): Promise<s.Snapshot> {
    const path = this.project`/snapshots/${requireId(snapshotId, 'snapshotId')}`;
    return (await this.data({ method: 'GET', path, ok: [200], schema: s.SnapshotBody })).snapshot;
  }

  /**
   * The generic pattern of a call an approval policy may protect: 202 `{jobId}` when it started, 201
   * `{actionApprovalRequest}` when it needs approval. An approved request is presented in the approval header.
   */
  async protectedCall(path: string, json: unknown, approvalRequestId?: string): Promise<ProtectedCallResult> {
    const headers =
      approvalRequestId !== undefined
        ? { [s.APPROVAL_HEADER]: requireId(approvalRequestId, 'approvalRequestId') }
        : undefined;
    const { status, data } = await this.caller.call({
      method: 'POST',
      path,
      json,
      headers,
      ok: [201, 202],
      schema: s.ProtectedCallAnswer,
    });
    const request = s.ActionRequestAnswer.safeParse(data).data?.actionApprovalRequest;
    if (status === 201 && request) return { kind: 'approvalRequired', request };
    const started = s.JobStarted.safeParse(data);
    if (!started.success) {
      throw new InvalidResponseError({ method: 'POST', path, status }, 'jobId: missing, and no action request');
    }
    return { kind: 'started', jobId: started.data.jobId };
  }

  // Jobs (docs/service-interface.md §3)

  async getBackupJob(jobId: string): Promise<s.BackupJob> {
    const path = this.project`/backup-jobs/${requireId(jobId, 'jobId')}`;
    return (await this.data({ method: 'GET', path, ok: [200], schema: s.BackupJobBody })).job;
  }
  async getRestoreJob(jobId: string): Promise<s.RestoreJob> {
    const path = this.project`/restore-jobs/${requireId(jobId, 'jobId')}`;
    return (await this.data({ method: 'GET', path, ok: [200], schema: s.RestoreJobBody })).job;
  }
  async listBackupJobsPage(input: s.JobListInput = {}, page: ListOptions = {}) {
    const body = prepareBody(BODY_RULES.jobList, input, 'list');
    return this.listPage(this.project`/backup-jobs`, s.BackupJobPage, body, page);
  }
  listBackupJobs(input: s.JobListInput = {}, options: ListOptions = {}): AsyncGenerator<s.BackupJob> {
    return this.all('jobs', options, (p) => this.listBackupJobsPage(input, p));
  }
  async listRestoreJobsPage(input: s.JobListInput = {}, page: ListOptions = {}) {
    const body = prepareBody(BODY_RULES.jobList, input, 'list');
    return this.listPage(this.project`/restore-jobs`, s.RestoreJobPage, body, page);
  }
  listRestoreJobs(input: s.JobListInput = {}, options: ListOptions = {}): AsyncGenerator<s.RestoreJob> {
    return this.all('jobs', options, (p) => this.listRestoreJobsPage(input, p));
  }

  // Restore accounts (docs/service-interface.md §5)

  async listRestoreAccountsPage(input: s.AccountListInput = {}, page: ListOptions = {}) {
    const body = prepareBody(BODY_RULES.restoreAccountList, input, 'list');
    return this.listPage(this.project`/restore-accounts/list`, s.RestoreAccountPage, body, page);
  }
  listRestoreAccounts(input: s.AccountListInput = {}, options: ListOptions = {}): AsyncGenerator<s.RestoreAccount> {
    return this.all('accounts', options, (p) => this.listRestoreAccountsPage(input, p));
  }
  async getRestoreAccount(accountId: string): Promise<s.RestoreAccount> {
    const path = this.project`/restore-accounts/${requireId(accountId, 'accountId')}`;
    return (await this.data({ method: 'GET', path, ok: [200], schema: s.RestoreAccountBody })).restoreAccount;
  }

  // 4.7 Database queries

  async runQuery(snapshotId: string, input: s.RunQueryInput): Promise<string> {
    const path = this.project`/snapshots/${requireId(snapshotId, 'snapshotId')}/databases/query`;
    const json = await this.sendable(prepareBody(BODY_RULES.runQuery, input, 'query'));
    return (await this.data({ method: 'POST', path, json, ok: [202], schema: s.QueryStarted })).queryId;
  }
  async getQueryStatus(queryId: string): Promise<s.QueryStatusBody> {
    const path = this.project`/queries/${requireId(queryId, 'queryId')}/status`;
    return this.data({ method: 'GET', path, ok: [200], schema: s.QueryStatusBody });
  }
  /**
   * One page of results; only once the query is COMPLETED. `tokenAhead` is told the next page's token as soon as the
   * body has arrived, before it is parsed and checked, when the token is the body's last field (see `trailingToken`):
   * a hint to start fetching the next page early, which the caller must check against the page's `nextToken`.
   */
  async getQueryResultsPage(
    queryId: string,
    page: ListOptions = {},
    tokenAhead?: (nextToken: string | null) => void,
  ): Promise<s.QueryResults> {
    const path = this.project`/queries/${requireId(queryId, 'queryId')}/results`;
    const query = validate(s.PageParams, page, 'page');
    const onText = tokenAhead && ((text: string) => trailingToken(text, tokenAhead));
    return this.data({ method: 'GET', path, query, ok: [200], schema: s.QueryResults, ...(onText ? { onText } : {}) });
  }
  queryResultPages(queryId: string, options: ListOptions = {}): AsyncGenerator<s.QueryResults> {
    requireId(queryId, 'queryId');
    return pagesOf((p) => this.getQueryResultsPage(queryId, p), options);
  }

  // 4.8 Cost data

  async getCostDataPage(input: s.CostDataInput, page: ListOptions = {}): Promise<s.CostDataPage> {
    const body = prepareBody(BODY_RULES.costData, input, 'costData');
    return this.listPage('/v1/cost-data', s.CostDataPage, body, page);
  }
  costDataPages(input: s.CostDataInput, options: ListOptions = {}): AsyncGenerator<s.CostDataPage> {
    return pagesOf((p) => this.getCostDataPage(input, p), options);
  }

  private snapshotPath(resourceId: string, snapshotId: string, action: string): string {
    return this
      .project`/resources/${requireId(resourceId, 'resourceId')}/snapshots/${requireId(snapshotId, 'snapshotId')}/${action}`;
  }
}

function keepSecret(credentials: s.ApiCredentials): s.ApiCredentials {
  registerSecret(credentials.clientSecret);
  return credentials;
}
