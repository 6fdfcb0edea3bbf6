import { z } from 'zod';

/** `session.whoami` (no input): the signed-in operator as the API server named them. */
export const WhoamiSchema = z.object({ username: z.string(), groups: z.array(z.string()) });
