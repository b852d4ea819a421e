/**
 * Providers by priority, highest first; equal priorities keep their registration order (a stable
 * sort), which is the documented tie-break.
 */
export function orderProviders<T extends { priority: number }>(providers: readonly T[]): T[] {
  return providers
    .map((provider, index) => ({ provider, index }))
    .sort((a, b) => b.provider.priority - a.provider.priority || a.index - b.index)
    .map(({ provider }) => provider);
}
