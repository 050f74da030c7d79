import { answer } from '../format.ts'
import type { Method } from './call.ts'

/** System: ping, licence, the OpenSubsonic extensions this server speaks. */
export const EXTENSIONS = [
  { name: 'apiKeyAuthentication', versions: [1] },
  { name: 'formPost', versions: [1] },
  { name: 'indexBasedQueue', versions: [1] },
  { name: 'transcodeOffset', versions: [1] },
  { name: 'songLyrics', versions: [1] },
]

export const system: Record<string, Method> = {
  ping: async () => null,
  getLicense: async ({ user }) => answer('license', { valid: true, email: user.email }),
  getOpenSubsonicExtensions: async () => answer('openSubsonicExtensions', EXTENSIONS),
}
