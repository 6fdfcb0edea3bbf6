import { WhoamiSchema } from '@mgpu/shared';
import { TRPCError } from '@trpc/server';
import { publicProcedure } from '../trpc/init.js';

/**
 * `session.whoami` (spec §8): the signed-in operator as the API server named them at sign-in.
 * Without per-user auth nobody is signed in: the console's own account acts.
 */
export const sessionWhoami = publicProcedure.output(WhoamiSchema).query(({ ctx }) => {
  if (ctx.operator === undefined)
    throw new TRPCError({
      code: 'NOT_FOUND',
      message:
        'This console runs without per-user sign-in (start it with --auth kubernetes): calls act as its own account.',
    });
  return { username: ctx.operator.username, groups: [...ctx.operator.groups] };
});
