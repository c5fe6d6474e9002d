export interface DoctorReport {
  ok: boolean
  checks: Record<'config' | 'bindings' | 'migrations' | 'vars' | 'secrets' | 'build', string[]>
  workers: Record<
    'data' | 'admin',
    {
      name: string
      secrets: { name: string; set: boolean | null; command: string }[]
      queues: string[]
      gzipKiB?: number
    }
  >
}
export declare function secretCommand(name: string): string
export declare function doctor(options?: {
  dir?: string
  env?: string
  data?: string
  admin?: string
  secrets?: string
  adminSecrets?: string
  build?: boolean
}): Promise<DoctorReport>
export declare function reportLines(report: DoctorReport, built: boolean): string[]
