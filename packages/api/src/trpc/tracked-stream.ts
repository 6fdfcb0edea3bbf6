import { isTrackedEnvelope, type TrackedEnvelope, tracked } from '@trpc/server';
import { z } from 'zod';
import { isPreparedOutput } from './prepared-output.js';

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * Output schema of a subscription that yields `tracked(id, data)`: every event's data is validated
 * with `schema` before it leaves the server, like a query's `.output()` (tRPC's documented
 * pattern for async-iterable outputs) — unless its maker prepared it as valid output of this
 * very schema (`prepareOutput`: validated where it was made, once for every subscriber).
 */
export function trackedStream<TOut, TIn>(schema: z.ZodType<TOut, TIn>) {
  // One event object fans out to every subscriber: validate it once, not once per subscriber.
  const validated = new WeakMap<object, Promise<TOut>>();
  const validate = (data: TIn): Promise<TOut> => {
    if (isPreparedOutput(schema, data)) return Promise.resolve(data as unknown as TOut);
    if (typeof data !== 'object' || data === null) return schema.parseAsync(data);
    let parsed = validated.get(data);
    if (parsed === undefined) {
      parsed = schema.parseAsync(data);
      validated.set(data, parsed);
    }
    return parsed;
  };
  return z
    .custom<AsyncIterable<TrackedEnvelope<TIn>>>(isAsyncIterable)
    .transform(async function* (iterable): AsyncGenerator<TrackedEnvelope<TOut>, void, unknown> {
      const iterator = iterable[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          if (!isTrackedEnvelope(next.value))
            throw new Error('subscription yielded an untracked event');
          const [id, data] = next.value;
          yield tracked(id, await validate(data));
        }
      } finally {
        await iterator.return?.();
      }
    });
}
