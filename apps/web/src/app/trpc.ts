import type { AppRouter } from '@mgpu/api';
import { QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';

/** The BFF's procedures, typed from the BFF's router (the only thing the web imports from it). */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Cluster state changes under us; previews are cheap, so keep them short-lived.
      queries: { staleTime: 5_000, retry: 1, refetchOnWindowFocus: false },
    },
  });
}

/** Sent on `window` when the BFF answers 401: the session ended (expired, signed out elsewhere). */
export const SESSION_ENDED_EVENT = 'mgpu:session-ended';

/** fetch, telling the session gate when a call was refused for want of a session. */
const sessionAwareFetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const response = await fetch(input, init);
  if (response.status === 401) window.dispatchEvent(new Event(SESSION_ENDED_EVENT));
  return response;
};

export function createBffClient() {
  const url = '/trpc';
  return createTRPCClient<AppRouter>({
    links: [
      // Subscriptions are server-sent events (spec §7); everything else is batched plain JSON.
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({ url }),
        false: splitLink({
          // A draft's preview grows with its containers: in a GET URL, ~60 of them pass the
          // server's header limit (431), so previews go as POST, and so do `usage.cards` (the
          // nodes of a workload spread over hundreds); other queries stay GETs.
          condition: (op) => op.path === 'workload.preview' || op.path === 'usage.cards',
          true: httpBatchLink({ url, methodOverride: 'POST', fetch: sessionAwareFetch }),
          false: httpBatchLink({ url, fetch: sessionAwareFetch }),
        }),
      }),
    ],
  });
}
