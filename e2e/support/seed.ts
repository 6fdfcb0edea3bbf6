/** The seed's example (spec §3/§6): 1.2 compute on 2 cards, 8 GiB → 60 % and 4096 MiB per card. */
export const seedRequest = (name: string) => ({
  name,
  namespace: 'default',
  replicas: 1,
  computePolicy: 'native-burst-share',
  containers: [
    {
      name: 'worker',
      image: 'nginx:1.27',
      gpu: { type: 'mgpu', multiCard: true, compute: '1.2', memoryGiB: '8', cards: 2 },
    },
  ],
});
