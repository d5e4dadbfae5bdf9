// Action requests (docs/service-interface.md §2): the caller's routes, the reviewer's control routes, the
// protected-operation guard, and every transition of the state machine on the simulated clock.
import { ActionRequestBody, MpaRequest, SubmitActionResult } from '../../api';
import { guardProtectedOperation, operationKeyOf } from '../../simulator/approvals';
import type { Principal } from '../../simulator/context';
import { SimError } from '../../simulator/errors';
import { ALL_PERMISSIONS } from '../../simulator/permissions';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import {
  credentialsWith,
  errorOf,
  expectAuthRefusals,
  suiteCall,
  tokenFor,
  tokenOf,
  UNKNOWN_ID,
  type Credentials,
  type Reply,
  expectBadRequest,
} from './helpers';

let sim: RunningSimulator;
let token: string;
let otherToken: string;
let unprivileged: string;
let other: Credentials;
let lacking: Credentials;

const OP = 'MPA_OPERATION_RESTORE_RESOURCE';
const HOUR = 3600;

const call = suiteCall(() => ({ sim, token }));
const mine = (id: string) => `/v1/projects/${sim.projectId}/action-approvals/my-requests/${id}`;
const control = (id: string, verb: 'approve' | 'deny') => `/_simulator/action-requests/${id}/${verb}`;

function principal(clientId = sim.clientId): Principal {
  const record = sim.ctx.state.credentials[clientId];
  if (!record) throw new Error(`no credentials ${clientId}`);
  return { credentials: record, token: 'unused' };
}

async function addPolicy(overrides: Record<string, unknown> = {}): Promise<string> {
  const body = {
    operations: [OP],
    requiredApprovals: 1,
    approvalWindowHours: 2,
    executionWindowHours: 4,
    ...overrides,
  };
  const res = await call('POST', '/_simulator/policies', { body, auth: null });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

const RESTORE_PATH = '/v1/projects/p/resources/r/snapshots/s/restore-bucket';
const KEY = operationKeyOf('POST', RESTORE_PATH, {
  restoreAccountId: 'a',
  destination: { bucketA: { bucketName: 'b', prefix: 'p' } },
});

/** A new CREATED request of the bootstrap caller, through the guard as a protected route would make it. */
function created(key = KEY): MpaRequest {
  const result = guardProtectedOperation(sim.ctx, principal(), OP, key, undefined);
  if (result.proceed) throw new Error('expected an action request');
  return result.request;
}

async function get(id: string, auth?: string): Promise<MpaRequest> {
  const res = await call('GET', mine(id), { auth });
  expect(res.status).toBe(200);
  return MpaRequest.parse(res.body);
}

async function submit(id: string, action: string, comment?: string): Promise<Reply> {
  return call('POST', `${mine(id)}/submit`, { body: { action, ...(comment ? { comment } : {}) } });
}

async function pending(): Promise<MpaRequest> {
  const req = created();
  expect((await submit(req.id, 'CONFIRM')).status).toBe(200);
  return get(req.id);
}

async function review(id: string, verb: 'approve' | 'deny', reviewerEmail?: string): Promise<Reply> {
  return call('POST', control(id, verb), { body: reviewerEmail ? { reviewerEmail } : {}, auth: null });
}

async function approved(): Promise<MpaRequest> {
  const req = await pending();
  expect((await review(req.id, 'approve')).status).toBe(200);
  const read = await get(req.id);
  expect(read.status).toBe('APPROVED');
  return read;
}

async function advance(seconds: number) {
  expect((await call('POST', '/_simulator/clock/advance', { body: { seconds }, auth: null })).status).toBe(200);
}

function guardError(fn: () => unknown): number {
  try {
    fn();
  } catch (err) {
    if (err instanceof SimError) return err.status;
    throw err;
  }
  throw new Error('expected the guard to refuse');
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  other = await credentialsWith(sim, ALL_PERMISSIONS);
  lacking = await credentialsWith(
    sim,
    ALL_PERMISSIONS.filter((p) => p !== 'mpa_requests.manage'),
  );
});

// Clock advances add up across tests; fresh tokens keep the 12-hour lifetime out of the picture.
beforeEach(async () => {
  token = await tokenFor(sim);
  otherToken = await tokenOf(sim, other);
  unprivileged = await tokenOf(sim, lacking);
  await call('DELETE', '/_simulator/policies', { auth: null });
  await addPolicy();
});

afterAll(async () => {
  await sim?.close();
});

describe('policies (control API)', () => {
  test('create 201 {id}, list, delete all 204', async () => {
    const id = await addPolicy({ operations: ['MPA_OPERATION_ADD_RESTORE_ACCOUNT'], description: 'two-person rule' });
    const listed = await call('GET', '/_simulator/policies', { auth: null });
    expect((listed.body as { policies: { id: string }[] }).policies.map((p) => p.id)).toContain(id);
    expect((await call('DELETE', '/_simulator/policies', { auth: null })).status).toBe(204);
    expect((await call('GET', '/_simulator/policies', { auth: null })).body).toEqual({ policies: [] });
  });

  test('400 for an unknown operation or a bad count, naming the field', async () => {
    const base = { operations: [OP], requiredApprovals: 1, approvalWindowHours: 1, executionWindowHours: 1 };
    const bad = await call('POST', '/_simulator/policies', { body: { ...base, operations: ['NOPE'] }, auth: null });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toContain('body.operations.0');
    const zero = await call('POST', '/_simulator/policies', { body: { ...base, requiredApprovals: 0 }, auth: null });
    expect(zero.status).toBe(400);
    expect(errorOf(zero)).toContain('body.requiredApprovals');
  });
});

describe('guardProtectedOperation', () => {
  test('proceeds when no policy covers the operation', async () => {
    await call('DELETE', '/_simulator/policies', { auth: null });
    await addPolicy({ operations: ['MPA_OPERATION_ADD_RESTORE_ACCOUNT'] });
    const result = guardProtectedOperation(sim.ctx, principal(), OP, KEY, undefined);
    expect(result).toEqual({ proceed: true });
  });

  test('a covered operation creates a CREATED request with one policy detail per covering policy', async () => {
    await addPolicy({ requiredApprovals: 2, approvalWindowHours: 6, executionWindowHours: 1, description: 'second' });
    const before = Date.now();
    const req = created();
    expect(MpaRequest.parse(req)).toEqual(req);
    expect(req).toMatchObject({
      operation: OP,
      status: 'CREATED',
      requesterEmail: principal().credentials.email,
      requesterName: principal().credentials.name,
    });
    expect(req.policyDetails).toEqual([
      { requiredApprovals: 1, currentApprovals: 0, approvalWindowHours: 2, executionWindowHours: 4 },
      {
        requiredApprovals: 2,
        currentApprovals: 0,
        approvalWindowHours: 6,
        executionWindowHours: 1,
        description: 'second',
      },
    ]);
    expect(Date.parse(req.createdTime)).toBeGreaterThanOrEqual(before - 1000);
    expect(req.approvalExpirationTime).toBeUndefined();
    expect(req.resolvedTime).toBeUndefined();
    // It is the caller's to read.
    expect(await get(req.id)).toEqual(req);
  });

  test('with the header: 404 unknown, 403 another caller, 409 not approved, 409 other parameters', async () => {
    expect(guardError(() => guardProtectedOperation(sim.ctx, principal(), OP, KEY, UNKNOWN_ID))).toBe(404);
    const req = created();
    expect(guardError(() => guardProtectedOperation(sim.ctx, principal(other.clientId), OP, KEY, req.id))).toBe(403);
    expect(guardError(() => guardProtectedOperation(sim.ctx, principal(), OP, KEY, req.id))).toBe(409);
    const ok = await approved();
    const otherKey = operationKeyOf('POST', '/v1/x', { restoreAccountId: 'b' });
    expect(guardError(() => guardProtectedOperation(sim.ctx, principal(), OP, otherKey, ok.id))).toBe(409);
    const otherOp = 'MPA_OPERATION_ADD_RESTORE_ACCOUNT';
    expect(guardError(() => guardProtectedOperation(sim.ctx, principal(), otherOp, KEY, ok.id))).toBe(409);
  });

  test('APPROVED → EXECUTED: the repeat proceeds, and executed() resolves the request; a second repeat is 409', async () => {
    const req = await approved();
    // The body's key order does not matter.
    const sameKey = operationKeyOf('post', RESTORE_PATH, {
      destination: { bucketA: { prefix: 'p', bucketName: 'b' } },
      restoreAccountId: 'a',
    });
    const result = guardProtectedOperation(sim.ctx, principal(), OP, sameKey, req.id);
    if (!result.proceed || !result.executed) throw new Error('expected to proceed with an executed callback');
    expect((await get(req.id)).status).toBe('APPROVED');
    result.executed('job-1');
    const done = await get(req.id);
    expect(done.status).toBe('EXECUTED');
    expect(done.resolvedTime).toEqual(expect.any(String));
    expect(guardError(() => guardProtectedOperation(sim.ctx, principal(), OP, KEY, req.id))).toBe(409);
  });
});

describe('GET my-requests/{requestId}', () => {
  test('200 with the bare MPARequest', async () => {
    const req = created();
    const res = await call('GET', mine(req.id));
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('mpaRequestDetail');
    expect(MpaRequest.parse(res.body).id).toBe(req.id);
  });

  test('403 another caller, 404 unknown request or project, 401 without a token, 403 without the permission', async () => {
    const req = created();
    expect((await call('GET', mine(req.id), { auth: otherToken })).status).toBe(403);
    expect((await call('GET', mine(UNKNOWN_ID))).status).toBe(404);
    const wrongProject = `/v1/projects/${UNKNOWN_ID}/action-approvals/my-requests/${req.id}`;
    expect((await call('GET', wrongProject)).status).toBe(404);
    await expectAuthRefusals(call, 'GET', mine(req.id), unprivileged);
  });
});

describe('submit', () => {
  test('CREATED → PENDING_APPROVAL with CONFIRM: the approval window is the longest of the policies', async () => {
    await addPolicy({ approvalWindowHours: 5 });
    const req = created();
    const res = await submit(req.id, 'CONFIRM', 'restore drill');
    expect(res.status).toBe(200);
    const body = SubmitActionResult.parse(res.body).actionApprovalRequest;
    if (!body) throw new Error('expected the request in the submit result');
    expect(body).toMatchObject({ status: 'PENDING_APPROVAL', comment: 'restore drill' });
    const window = Date.parse(body.approvalExpirationTime ?? '') - sim.ctx.clock.now();
    expect(window).toBeGreaterThan(5 * HOUR * 1000 - 60_000);
    expect(window).toBeLessThanOrEqual(5 * HOUR * 1000);
    expect(body.resolvedTime).toBeUndefined();
  });

  test('CREATED → DISCARDED with DISCARD: resolved, with no approval deadline', async () => {
    const req = created();
    const res = await submit(req.id, 'DISCARD');
    expect(res.status).toBe(200);
    const body = SubmitActionResult.parse(res.body).actionApprovalRequest;
    expect(body).toMatchObject({ status: 'DISCARDED', resolvedTime: expect.any(String) as unknown });
    expect(body?.approvalExpirationTime).toBeUndefined();
  });

  test('409 when not CREATED', async () => {
    const req = await pending();
    for (const action of ['CONFIRM', 'DISCARD']) {
      const res = await submit(req.id, action);
      expect(res.status).toBe(409);
      expect(errorOf(res)).toMatch(/PENDING_APPROVAL/);
    }
  });

  test('400 for MPA_SUBMIT_ACTION_UNSPECIFIED or a missing action, naming body.action', async () => {
    const req = created();
    for (const body of [{ action: 'MPA_SUBMIT_ACTION_UNSPECIFIED' }, {}]) {
      const res = await call('POST', `${mine(req.id)}/submit`, { body });
      expectBadRequest(res, 'body.action');
    }
    expect((await get(req.id)).status).toBe('CREATED');
  });

  test('403 another caller, 404 unknown, 401 without a token, 403 without the permission', async () => {
    const req = created();
    const body = { action: 'CONFIRM' };
    expect((await call('POST', `${mine(req.id)}/submit`, { body, auth: otherToken })).status).toBe(403);
    expect((await call('POST', `${mine(UNKNOWN_ID)}/submit`, { body })).status).toBe(404);
    expect((await call('POST', `${mine(req.id)}/submit`, { body, auth: null })).status).toBe(401);
    expect((await call('POST', `${mine(req.id)}/submit`, { body, auth: unprivileged })).status).toBe(403);
    expect((await get(req.id)).status).toBe('CREATED');
  });
});

describe('review (control API)', () => {
  test('PENDING_APPROVAL → APPROVED after two required approvals, with the execution deadline', async () => {
    await call('DELETE', '/_simulator/policies', { auth: null });
    await addPolicy({ requiredApprovals: 2, executionWindowHours: 3 });
    const req = await pending();
    const first = await review(req.id, 'approve', 'alice@example.com');
    expect(first.status).toBe(200);
    const half = ActionRequestBody.parse(first.body).actionApprovalRequest;
    expect(half.status).toBe('PENDING_APPROVAL');
    expect(half.policyDetails[0]?.currentApprovals).toBe(1);
    // The same reviewer does not count twice; nor does the requester.
    expect((await review(req.id, 'approve', 'alice@example.com')).status).toBe(409);
    expect((await review(req.id, 'approve', req.requesterEmail)).status).toBe(409);
    const second = await review(req.id, 'approve', 'bob@example.com');
    const done = ActionRequestBody.parse(second.body).actionApprovalRequest;
    expect(done.status).toBe('APPROVED');
    expect(done.policyDetails[0]?.currentApprovals).toBe(2);
    const window = Date.parse(done.executionExpirationTime ?? '') - sim.ctx.clock.now();
    expect(window).toBeGreaterThan(3 * HOUR * 1000 - 60_000);
    expect(window).toBeLessThanOrEqual(3 * HOUR * 1000);
    expect(done.resolvedTime).toBeUndefined();
    const detail = await call('GET', `/_simulator/action-requests/${req.id}`, { auth: null });
    const reviews = (detail.body as { reviews: { reviewerEmail: string; decision: string }[] }).reviews;
    expect(reviews.map((r) => [r.reviewerEmail, r.decision])).toEqual([
      ['alice@example.com', 'APPROVED'],
      ['bob@example.com', 'APPROVED'],
    ]);
    // Approving an APPROVED request is out of turn.
    expect((await review(req.id, 'approve')).status).toBe(409);
  });

  test('PENDING_APPROVAL → DENIED, resolved; then no more reviews', async () => {
    const req = await pending();
    const res = await review(req.id, 'deny');
    expect(res.status).toBe(200);
    expect(ActionRequestBody.parse(res.body).actionApprovalRequest).toMatchObject({
      status: 'DENIED',
      resolvedTime: expect.any(String) as unknown,
    });
    expect((await review(req.id, 'approve')).status).toBe(409);
    expect((await review(req.id, 'deny')).status).toBe(409);
  });

  test('409 for a request that is not PENDING_APPROVAL; 404 unknown', async () => {
    const req = created();
    expect((await review(req.id, 'approve')).status).toBe(409);
    expect((await review(req.id, 'deny')).status).toBe(409);
    expect((await review(UNKNOWN_ID, 'approve')).status).toBe(404);
    expect((await review(UNKNOWN_ID, 'deny')).status).toBe(404);
  });
});

describe('cancel', () => {
  test('PENDING_APPROVAL → CANCELED_PENDING_APPROVAL', async () => {
    const req = await pending();
    const res = await call('POST', `${mine(req.id)}/cancel`);
    expect(res.status).toBe(200);
    expect(ActionRequestBody.parse(res.body).actionApprovalRequest).toMatchObject({
      status: 'CANCELED_PENDING_APPROVAL',
      resolvedTime: expect.any(String) as unknown,
    });
  });

  test('APPROVED → CANCELED_APPROVED; the approval can no longer be used', async () => {
    const req = await approved();
    const res = await call('POST', `${mine(req.id)}/cancel`);
    expect(res.status).toBe(200);
    expect(ActionRequestBody.parse(res.body).actionApprovalRequest.status).toBe('CANCELED_APPROVED');
    expect(guardError(() => guardProtectedOperation(sim.ctx, principal(), OP, KEY, req.id))).toBe(409);
  });

  test('409 in any other status', async () => {
    const fresh = created();
    expect((await call('POST', `${mine(fresh.id)}/cancel`)).status).toBe(409);
    const canceled = await pending();
    expect((await call('POST', `${mine(canceled.id)}/cancel`)).status).toBe(200);
    const again = await call('POST', `${mine(canceled.id)}/cancel`);
    expect(again.status).toBe(409);
    expect(errorOf(again)).toMatch(/CANCELED_PENDING_APPROVAL/);
  });

  test('403 another caller, 404 unknown, 401 without a token, 403 without the permission', async () => {
    const req = await pending();
    expect((await call('POST', `${mine(req.id)}/cancel`, { auth: otherToken })).status).toBe(403);
    expect((await call('POST', `${mine(UNKNOWN_ID)}/cancel`)).status).toBe(404);
    expect((await call('POST', `${mine(req.id)}/cancel`, { auth: null })).status).toBe(401);
    expect((await call('POST', `${mine(req.id)}/cancel`, { auth: unprivileged })).status).toBe(403);
    expect((await get(req.id)).status).toBe('PENDING_APPROVAL');
  });
});

describe('deadlines on the simulated clock', () => {
  test('PENDING_APPROVAL → EXPIRED_PENDING_APPROVAL when the approval window passes, resolved at the deadline', async () => {
    const req = await pending();
    await advance(2 * HOUR - 60);
    expect((await get(req.id)).status).toBe('PENDING_APPROVAL');
    await advance(120);
    const expired = await get(req.id);
    expect(expired.status).toBe('EXPIRED_PENDING_APPROVAL');
    expect(expired.resolvedTime).toBe(expired.approvalExpirationTime);
    expect((await review(req.id, 'approve')).status).toBe(409);
    expect((await call('POST', `${mine(req.id)}/cancel`)).status).toBe(409);
  });

  test('APPROVED → EXPIRED_APPROVED when the execution window passes, resolved at the deadline', async () => {
    const req = await approved();
    await advance(4 * HOUR + 1);
    const expired = await get(req.id);
    expect(expired.status).toBe('EXPIRED_APPROVED');
    expect(expired.resolvedTime).toBe(expired.executionExpirationTime);
    expect(guardError(() => guardProtectedOperation(sim.ctx, principal(), OP, KEY, req.id))).toBe(409);
    expect((await call('POST', `${mine(req.id)}/cancel`)).status).toBe(409);
  });

  test('the guard applies expiry itself, without a read in between', async () => {
    const req = await approved();
    sim.ctx.clock.advance(4 * HOUR + 1);
    expect(guardError(() => guardProtectedOperation(sim.ctx, principal(), OP, KEY, req.id))).toBe(409);
    expect(sim.ctx.state.actionRequests[req.id]?.request.status).toBe('EXPIRED_APPROVED');
  });
});

describe('through the restore-bucket route', () => {
  function target() {
    const snapshot = Object.values(sim.ctx.state.snapshots).find((s) => sim.ctx.state.resources[s.resourceId]);
    const accounts = Object.values(sim.ctx.state.restoreAccounts).filter((a) => a.isRestoreAllowed);
    if (!snapshot || accounts.length < 2) throw new Error('expected a seeded snapshot and two restore accounts');
    const path = `/v1/projects/${sim.projectId}/resources/${snapshot.resourceId}/snapshots/${snapshot.id}/restore-bucket`;
    const body = (i: number) => ({
      destination: { bucketA: { bucketName: 'restores', prefix: 'drill' } },
      restoreAccountId: accounts[i]?.id,
    });
    return { path, body };
  }

  async function restore(path: string, body: unknown, opts: { header?: string; auth?: string } = {}) {
    const headers: Record<string, string> = opts.header ? { 'x-action-approval-request-id': opts.header } : {};
    return call('POST', path, { body, auth: opts.auth, headers });
  }

  test('201 request, approval, then the repeat runs once: 202 and EXECUTED', async () => {
    const { path, body } = target();
    const first = await restore(path, body(0));
    expect(first.status).toBe(201);
    const req = ActionRequestBody.parse(first.body).actionApprovalRequest;
    expect(req).toMatchObject({ status: 'CREATED', operation: OP });
    expect((await submit(req.id, 'CONFIRM')).status).toBe(200);
    expect((await review(req.id, 'approve')).status).toBe(200);

    expect((await restore(path, body(0), { header: UNKNOWN_ID })).status).toBe(404);
    expect((await restore(path, body(0), { header: req.id, auth: otherToken })).status).toBe(403);
    expect((await restore(path, body(1), { header: req.id })).status).toBe(409);
    expect((await get(req.id)).status).toBe('APPROVED');

    const run = await restore(path, body(0), { header: req.id });
    expect(run.status).toBe(202);
    expect(run.body).toEqual({ jobId: expect.any(String) as unknown });
    const done = await get(req.id);
    expect(done.status).toBe('EXECUTED');
    expect(typeof done.resolvedTime).toBe('string');
    expect((await restore(path, body(0), { header: req.id })).status).toBe(409);
  });

  test('a request not yet approved is refused with 409; without a policy the restore starts at once', async () => {
    const { path, body } = target();
    const req = ActionRequestBody.parse((await restore(path, body(0))).body).actionApprovalRequest;
    expect((await restore(path, body(0), { header: req.id })).status).toBe(409);
    await call('DELETE', '/_simulator/policies', { auth: null });
    expect((await restore(path, body(0))).status).toBe(202);
  });
});
