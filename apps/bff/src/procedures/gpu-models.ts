import { GpuModelSchema } from '@mgpu/shared';
import { z } from 'zod';
import { currentPools, gpuModels as modelsOf } from '../cluster/inventory.js';
import { publicProcedure } from '../trpc/init.js';

/** `gpu.models`: what the form's 显卡类型 offers, with card shape, policies and free room. */
export const gpuModels = publicProcedure
  .input(z.object({}).optional())
  .output(z.array(GpuModelSchema))
  .query(({ ctx }) => modelsOf(currentPools(ctx)));
