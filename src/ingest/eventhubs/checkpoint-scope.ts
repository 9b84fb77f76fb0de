/**
 * The key one hub's consumer group is stored under. Lowercased like the Blob checkpoint store, because
 * namespaces and hub names are case-insensitive on the service.
 */
export function checkpointScope(fullyQualifiedNamespace: string, eventHubName: string, consumerGroup: string): string {
  return `${fullyQualifiedNamespace}/${eventHubName}/${consumerGroup}`.toLowerCase();
}
