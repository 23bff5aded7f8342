/** The index key of a namespaced object: `namespace/name`, as Kubernetes writes it. */
export function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
