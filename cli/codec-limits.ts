import type { Payload } from '@temporalio/common';

/**
 * How much one request to the codec server may ask for, so that one request cannot starve the others or the process.
 * The Web UI sends the payloads of a page of history (Temporal caps a gRPC message, a page included, at 4 MB; a
 * payload at 2 MB), far below each of these.
 */
export interface CodecServerLimits {
  /** The request body, in bytes (413 beyond, checked as it streams in). */
  maxBodyBytes: number;
  /** Payloads in one request (413 beyond, before any is decoded). */
  maxPayloads: number;
  /** The bytes the codec gives back for one request, metadata included (413 beyond, and the answer is not sent). */
  maxCodedBytes: number;
  /** Requests read or worked on at once (503 with Retry-After beyond): it bounds the memory all requests hold. */
  maxRequestsInFlight: number;
  /** From connection to the end of the headers, and to the end of the body (408 beyond): a slow client holds nothing long. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Payloads coded between two turns of the event loop, so that a small request is answered while a big one runs. */
  chunkPayloads: number;
}

export const DEFAULT_CODEC_LIMITS: CodecServerLimits = {
  maxBodyBytes: 8 * 1024 * 1024,
  maxPayloads: 2000,
  maxCodedBytes: 6 * 1024 * 1024,
  maxRequestsInFlight: 4,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  chunkPayloads: 100,
};

/** A request the codec server refuses, with the HTTP status it answers. */
export class RefusedRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const sizeOf = ({ metadata, data }: Payload) =>
  Object.values(metadata ?? {}).reduce((sum, value) => sum + (value?.length ?? 0), data?.length ?? 0);

/**
 * Codes the payloads a chunk at a time, yielding between chunks (AES-GCM runs synchronously: one call over a whole
 * request would hold the event loop for all of it), and stops as soon as the output outgrows the limit.
 */
export async function codeInChunks(
  payloads: Payload[],
  code: (chunk: Payload[]) => Promise<Payload[]>,
  limits: CodecServerLimits,
): Promise<Payload[]> {
  const out: Payload[] = [];
  let size = 0;
  for (let start = 0; start < payloads.length; start += limits.chunkPayloads) {
    if (start > 0) await nextTurn();
    for (const payload of await code(payloads.slice(start, start + limits.chunkPayloads))) {
      size += sizeOf(payload);
      if (size > limits.maxCodedBytes) {
        throw new RefusedRequest(413, `the coded payloads exceed ${limits.maxCodedBytes} bytes in one request`);
      }
      out.push(payload);
    }
  }
  return out;
}
