import { QueryClientProvider } from '@tanstack/react-query';
import { ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { lazy, useState } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { CreateWorkloadPage } from '../features/create-workload/create-workload-page.js';
import { I18nProvider, useI18n } from '../i18n/i18n.js';
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
const NotFoundPage = lazy(() =>
  import('./not-found-page.js').then((m) => ({ default: m.NotFoundPage })),
);

// Declarative routes: the data-router APIs would add ~60 KB to the form's first bundle.
function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route path="/" element={<Navigate to="/workloads/new" replace />} />
        <Route path="/workloads/new" element={<CreateWorkloadPage />} />
        <Route path="/workloads/:namespace/:name" element={<WorkloadResultPage />} />
        <Route path="/allocations" element={<AllocationsPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

function Themed() {
  const { lang } = useI18n();
  return (
    <ConfigProvider
      locale={lang === 'en' ? enUS : zhCN}
      // antd spaces out two-character Chinese labels ("创 建"); §7 names the button exactly "创建".
      button={{ autoInsertSpace: false }}
    >
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </ConfigProvider>
  );
}

export function App() {
  const [queryClient] = useState(createQueryClient);
  const [trpcClient] = useState(createBffClient);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <I18nProvider>
          <Themed />
        </I18nProvider>
      </TRPCProvider>
    </QueryClientProvider>
  );
}
