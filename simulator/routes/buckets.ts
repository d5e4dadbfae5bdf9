import { z } from 'zod';
import { BUCKET_NAME } from '../buckets';
import type { SimModule } from '../context';
import { SimError, notFound, parse } from '../errors';

const BucketsInput = z.strictObject({
  buckets: z
    .array(
      z.strictObject({
        name: z.string().regex(BUCKET_NAME, 'not a valid bucket name (lower-case letters, digits, dots, hyphens)'),
        region: z.string().min(1).max(64),
      }),
    )
    .max(1000),
});

type AccountParams = { Params: { id: string } };

/**
 * Control routes that declare a restore account's buckets. Where an account has declared buckets, a restore or a query
 * into it must name one of them (and a query one in the snapshot's vault region); elsewhere any name is accepted.
 */
export const bucketsModule: SimModule = {
  name: 'buckets',
  routes(app, ctx) {
    const path = '/_simulator/restore-accounts/:id/buckets';

    app.put<AccountParams>(path, async (req) => {
      const { buckets } = parse(BucketsInput, req.body, 'body');
      if (!ctx.state.restoreAccounts[req.params.id]) throw notFound(`restore account ${req.params.id}`);
      const names = buckets.map((b) => b.name);
      const repeated = names.find((name, i) => names.indexOf(name) !== i);
      if (repeated) throw new SimError(400, `invalid body.buckets: bucket ${repeated} is declared twice`);
      const all = (ctx.state.restoreAccountBuckets ??= {});
      // An empty list removes the declaration: the account accepts any bucket name again.
      if (buckets.length === 0) delete all[req.params.id];
      else all[req.params.id] = buckets;
      return { restoreAccountId: req.params.id, buckets };
    });

    app.get<AccountParams>(path, async (req) => {
      if (!ctx.state.restoreAccounts[req.params.id]) throw notFound(`restore account ${req.params.id}`);
      return { restoreAccountId: req.params.id, buckets: ctx.state.restoreAccountBuckets?.[req.params.id] ?? [] };
    });
  },
  summary(ctx) {
    const declared = Object.entries(ctx.state.restoreAccountBuckets ?? {});
    return {
      buckets: declared.flatMap(([restoreAccountId, buckets]) => buckets.map((b) => ({ restoreAccountId, ...b }))),
      bucketRule:
        'any valid bucket name is accepted, unless PUT /_simulator/restore-accounts/{id}/buckets declared the ' +
        "account's buckets: then only those, and for queries only those in the snapshot's vault region",
    };
  },
};
