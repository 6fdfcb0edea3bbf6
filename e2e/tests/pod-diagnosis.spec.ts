import AxeBuilder from '@axe-core/playwright';
import { onRealTier } from '@mgpu/shared/test-tier';
import { expect, type Page, test } from '@playwright/test';
import { callApi } from '../support/api.js';
import { requestOf, SEED_FORM } from '../support/form.js';

/**
 * Diagnosis on the result page (issue 27): the Events of the workload's pod, newest first, and
 * its container's log — on the embedded cluster what the node agent set up (instance, card,
 * compute weight, memory limit); on kube-apiserver without kubelets, a plain "unavailable".
 */
const WORDS = {
  'zh-CN': {
    section: '诊断',
    events: '事件（最新在前）',
    normal: '正常',
    log: (pod: string) => `Pod ${pod} 中 main 的日志`,
    unavailable: /日志不可用：API Server 无法连接到 Pod 所在节点的 kubelet/,
  },
  en: {
    section: 'Diagnosis',
    events: 'Events (newest first)',
    normal: 'Normal',
    log: (pod: string) => `Log of main in pod ${pod}`,
    unavailable: /Log unavailable: the API server could not reach a kubelet/,
  },
} as const;

async function showsDiagnosis(page: Page, lang: keyof typeof WORDS) {
  const words = WORDS[lang];
  const name = `diag-${lang === 'en' ? 'en' : 'zh'}-${Date.now().toString(36)}`;
  await page.goto('/workloads/new');
  if (lang === 'en') await page.getByRole('button', { name: 'English' }).click();
  await callApi(page, 'workload.create', { ...requestOf({ ...SEED_FORM, name }), lang });
  try {
    await page.goto(`/workloads/default/${name}`);
    const section = page.getByRole('region', { name: words.section });
    await expect(section).toBeVisible({ timeout: 30_000 });
    const panel = section.getByTestId('pod-diagnosis').first();
    const pod = (await panel.getAttribute('data-pod')) ?? '';
    expect(pod).toMatch(new RegExp(`^${name}-`));
    // Events, newest first: the container started after the scheduler placed it on its cards.
    const events = panel.getByRole('list', { name: words.events });
    await expect(events.locator('li[data-reason="Started"]')).toBeVisible({ timeout: 30_000 });
    const reasons = await events
      .locator('li')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-reason')));
    expect(reasons.indexOf('Started')).toBeLessThan(reasons.indexOf('Scheduled'));
    // Kubernetes' event type in the operator's language.
    await expect(events.locator('li[data-reason="Started"] [data-type="Normal"]')).toHaveText(
      words.normal,
    );
    await expect(events.locator('li[data-reason="Scheduled"]')).toContainText(/cards main=\[/);
    if (onRealTier()) {
      await expect(panel.getByText(words.unavailable)).toBeVisible();
      return;
    }
    // The log: what the node set up for the container, one instance per card (1.2 on 2 cards).
    const log = panel.getByRole('log', { name: words.log(pod) });
    await expect(log).toContainText('container main started');
    await expect(log).toContainText(
      /mGPU instance \/dev\/mgpu\d+inst\d+ on card \d+: compute weight 60 %, memory limit 4096 MiB, policy native-burst-share/,
    );
    const text = (await log.textContent()) ?? '';
    expect(text.match(/mGPU instance/g)).toHaveLength(2);
    // Read by keyboard and screen reader too: no serious axe violation in the section.
    const axe = await new AxeBuilder({ page }).include('.pod-diagnosis').analyze();
    expect(
      axe.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => violation.id),
    ).toEqual([]);
  } finally {
    await callApi(page, 'workload.delete', { namespace: 'default', name });
  }
}

test('the result page shows the pod Events and its container log (zh-CN)', async ({ page }) => {
  await showsDiagnosis(page, 'zh-CN');
});

test('the result page shows the pod Events and its container log (en)', async ({ page }) => {
  await showsDiagnosis(page, 'en');
});
