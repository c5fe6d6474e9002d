export declare function makePng(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number],
): Buffer
export declare function demoImages(): Record<string, { body: Buffer | string; contentType: string }>
