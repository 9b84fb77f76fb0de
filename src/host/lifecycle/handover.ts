/**
 * The abort reason of a run that ends because another instance takes the work over (this one's
 * lease ended), not because the host stops: a service keeps what its successor resumes (an MQTT
 * session, say) instead of ending it.
 */
export const HANDOVER = Symbol('handover');
