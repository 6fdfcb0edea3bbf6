import { ClusterHistorySchema } from '@mgpu/shared';
import { z } from 'zod';
import { publicProcedure } from '../trpc/init.js';

/** `cluster.history`: the last hour (configurable) of per-pool figures, sampled every 10 s. */
export const clusterHistory = publicProcedure
  .input(z.object({}).optional())
  .output(ClusterHistorySchema)
  .query(({ ctx }) => ctx.history.snapshot());
