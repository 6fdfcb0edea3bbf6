import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, type ReactNode, useState } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { CreateWorkloadPage } from '../features/create-workload/create-workload-page.js';
import { I18nProvider } from '../i18n/i18n.js';
import { RouteTitle, type TitledRoute } from './document-title.js';
import { Layout } from './layout.js';
import { createBffClient, createQueryClient, TRPCProvider } from './trpc.js';

// Only the form is in the first bundle; the other pages load when visited.
const WorkloadResultPage = lazy(() =>
  import('../features/workload-result/workload-result-page.js').then((m) => ({
    default: m.WorkloadResultPage,
  })),
);
const AllocationsPage = lazy(() =>
  import('../features/allocations/allocations-page.js').then((m) => ({
    default: m.AllocationsPage,
  })),
);
// The edit form reuses the creation form's parts (already loaded); only its page is its own chunk.
const EditWorkloadPage = lazy(() =>
  import('../features/edit-workload/edit-workload-page.js').then((m) => ({
    default: m.EditWorkloadPage,
  })),
);
const WorkloadsPage = lazy(() =>
  import('../features/workloads/workloads-page.js').then((m) => ({ default: m.WorkloadsPage })),
);
// antd's ConfigProvider comes with the pages that use antd, not with the form.
const AntdScope = lazy(() => import('./antd-scope.js').then((m) => ({ default: m.AntdScope })));
const NotFoundPage = lazy(() =>
  import('./not-found-page.js').then((m) => ({ default: m.NotFoundPage })),
);

/** A page with its route's document title, whichever state it shows (loading, error, read-only). */
const titled = (route: TitledRoute, page: ReactNode) => (
  <>
    <RouteTitle route={route} />
    {page}
  </>
);

// Declarative routes: the data-router APIs would add ~60 KB to the form's first bundle.
function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route path="/" element={<Navigate to="/workloads/new" replace />} />
        <Route path="/workloads/new" element={titled('create', <CreateWorkloadPage />)} />
        <Route
          path="/workloads/:namespace/:name/edit"
          element={titled('edit', <EditWorkloadPage />)}
        />
        <Route element={<AntdScope />}>
          <Route path="/workloads" element={titled('workloads', <WorkloadsPage />)} />
          <Route
            path="/workloads/:namespace/:name"
            element={titled('result', <WorkloadResultPage />)}
          />
          <Route path="/allocations" element={titled('allocations', <AllocationsPage />)} />
          <Route path="*" element={titled('notFound', <NotFoundPage />)} />
        </Route>
      </Route>
    </Routes>
  );
}

/**
 * The app around a router: the browser's history here, a fixed location when the build
 * prerenders /workloads/new (`src/prerender.tsx`), so both render the same markup.
 */
export function AppWithRouter({ router }: { router(routes: ReactNode): ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  const [trpcClient] = useState(createBffClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <I18nProvider>{router(<AppRoutes />)}</I18nProvider>
      </TRPCProvider>
    </QueryClientProvider>
  );
}

const browserRouter = (routes: ReactNode) => <BrowserRouter>{routes}</BrowserRouter>;

export function App() {
  return <AppWithRouter router={browserRouter} />;
}
