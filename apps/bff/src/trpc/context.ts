import type { CardPolicy } from '@mgpu/shared';
import type { ClusterClient } from '../cluster/cluster-client.js';
import type { ClusterSource } from '../cluster/connection.js';
import type { AllocationFeed } from '../live/allocation-feed.js';

/** What every procedure gets: the cluster, its live state, and how the scheduler picks cards. */
export interface BffContext {
  cluster: ClusterClient;
  source: ClusterSource;
  allocations: AllocationFeed;
  cardPolicy: CardPolicy;
}
