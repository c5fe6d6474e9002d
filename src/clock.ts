/** The time source routes sign with. Tests pass a fixed one; the Worker uses the request time. */
export type Clock = () => Date

export const systemClock: Clock = () => new Date()
