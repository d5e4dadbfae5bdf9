import type { z } from 'zod';
import type { TokenProvider } from './auth';
import { decode } from './decode';
import { errorForStatus, InvalidResponseError, UnexpectedStatusError } from './errors';
import type { HttpRequest, HttpResponse, HttpTransport } from './http';
import { ErrorBody } from './schemas';
import { ServiceClock, type OffsetBounds } from './service-clock';
import { issueField } from './validate';

export interface Call<S extends z.ZodType> extends HttpRequest {
  /** Statuses that count as success, each decoded with `schema`. */
  ok: readonly number[];
  schema: S;
}

/** Sends authorised calls: adds the bearer token, refreshes it once on a 401, maps statuses to typed errors. */
export class ServiceCaller {
  /** The service's clock minus ours, from the last `Date` header; undefined until one is seen. */
  private clockOffsetMs?: number;
  private dateHeader?: string;
  private dateMs = NaN;
  private readonly clock = new ServiceClock();

  constructor(
    readonly transport: HttpTransport,
    readonly tokens: TokenProvider,
  ) {}

  /**
   * Now on the service's clock, as its last answer told (whole seconds, rounded down); our clock until one has.
   * Time windows over the service's timestamps must use it: the two clocks can be far apart.
   */
  serviceNow(): number {
    return Date.now() + (this.clockOffsetMs ?? 0);
  }

  /** The service's clock minus ours, narrowed over its answers (see ServiceClock); undefined before any answer. */
  serviceOffsetBounds(): OffsetBounds | undefined {
    return this.clock.offsetBounds();
  }

  async call<S extends z.ZodType>(call: Call<S>): Promise<{ status: number; data: z.output<S> }> {
    const res = await this.sendAuthorised(call);
    if (!call.ok.includes(res.status)) throw this.errorOf(call, res);
    const decoded = decode(call.schema, res.body ?? {});
    if (!decoded.success) {
      const issue = decoded.error.issues[0];
      throw new InvalidResponseError(
        { method: call.method, path: call.path, status: res.status },
        issue ? `${issueField(issue, 'body')}: ${issue.message}` : 'body: invalid',
      );
    }
    return { status: res.status, data: decoded.data };
  }

  private async sendAuthorised(req: HttpRequest): Promise<HttpResponse> {
    const token = this.tokens.freshToken() ?? (await this.tokens.getToken());
    const sentAt = Date.now();
    const res = this.observeClock(await this.transport.send(req, `Bearer ${token}`), sentAt);
    if (res.status !== 401) return res;
    // The token may have been revoked or expired early: one fresh token, one more try.
    const fresh = await this.tokens.refresh(token);
    const sentAgainAt = Date.now();
    return this.observeClock(await this.transport.send(req, `Bearer ${fresh}`), sentAgainAt);
  }

  private observeClock(res: HttpResponse, sentAt: number): HttpResponse {
    const header = res.headers.date ?? '';
    // The header changes once a second: parse it only then.
    if (header !== this.dateHeader) {
      this.dateHeader = header;
      this.dateMs = Date.parse(header);
    }
    if (Number.isFinite(this.dateMs)) {
      const receivedAt = Date.now();
      this.clockOffsetMs = this.dateMs - receivedAt;
      this.clock.observe(this.dateMs, sentAt, receivedAt);
    }
    return res;
  }

  private errorOf(call: HttpRequest, res: HttpResponse) {
    const serviceMessage = ErrorBody.safeParse(res.body).data?.error;
    const context = { method: call.method, path: call.path, serviceMessage };
    if (res.status >= 200 && res.status < 300) return new UnexpectedStatusError(res.status, context);
    return errorForStatus(res.status, context, res.headers['retry-after']);
  }
}
