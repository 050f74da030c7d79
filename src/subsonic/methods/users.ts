import { ErrorAuthorizationFail } from '../errors.ts'
import { answer } from '../format.ts'
import { SubsonicError } from '../params.ts'
import { FOLDER_ID, type Method } from './call.ts'

/** Users: only one's own. */
export const users: Record<string, Method> = {
  getUser: async ({ params, user }) => {
    const username = params.required('username')
    if (username.trim().toLowerCase() !== user.email) throw new SubsonicError(ErrorAuthorizationFail, 'You can only look up your own user.')
    return answer('user', {
      username: user.email,
      email: user.email,
      scrobblingEnabled: true,
      adminRole: false,
      settingsRole: false,
      downloadRole: true,
      uploadRole: false,
      playlistRole: true,
      coverArtRole: false,
      commentRole: false,
      podcastRole: false,
      streamRole: true,
      jukeboxRole: false,
      shareRole: false,
      videoConversionRole: false,
      folder: [FOLDER_ID],
    })
  },
}
