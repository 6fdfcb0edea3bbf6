import { GpuModelsSchema, NoInputSchema } from '@mgpu/shared';
import { gpuModels as modelsOf } from '../cluster/inventory.js';
import { modelsWithoutFigures, seesNodes } from '../identity/cluster-view.js';
import { publicProcedure } from '../trpc/init.js';

/**
 * `gpu.models`: what the form's 显卡类型 offers, with card shape, policies and — for operators who
 * may list nodes — node counts and free room.
 */
export const gpuModels = publicProcedure
  .input(NoInputSchema)
  .output(GpuModelsSchema)
  .query(async ({ ctx }) => {
    const models = modelsOf(ctx.views.pools());
    return (await seesNodes(ctx)) ? models : modelsWithoutFigures(models);
  });
