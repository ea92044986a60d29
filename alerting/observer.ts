// The port through which alert and webhook deliveries are counted; the metrics
// stage implements it, so alerting never reaches for the registry.
export interface DeliveryObserver {
  delivery(channel: string, outcome: string, seconds?: number): void
}
