/**
 * Query keys, one root per cached data tag of docs/product.md#cached-data (the first key element
 * is the tag), so `invalidateQueries({ queryKey: queryKeys.webDav.all })`
 * refreshes everything of one type. Add narrower keys under the same root.
 */
export const queryKeys = {
  user: { all: ['User'] as const, session: () => ['User', 'session'] as const },
  webDav: { all: ['WebDav'] as const, account: () => ['WebDav', 'account'] as const },
  apiToken: { all: ['ApiToken'] as const, list: () => ['ApiToken', 'list'] as const },
  authProvider: { all: ['AuthProvider'] as const, identities: () => ['AuthProvider', 'identities'] as const },
  musicPlayers: { all: ['MusicPlayers'] as const },
  musicJob: {
    all: ['MusicJob'] as const,
    list: (page: number, perPage: number) => ['MusicJob', 'list', { page, perPage }] as const,
    detail: (id: string) => ['MusicJob', 'detail', id] as const,
  },
  musicGrouping: { all: ['MusicGrouping'] as const, byUrl: (videoUrl: string) => ['MusicGrouping', videoUrl] as const },
  musicArtwork: { all: ['MusicArtwork'] as const, byUrl: (artworkUrl: string) => ['MusicArtwork', artworkUrl] as const },
  musicTags: { all: ['MusicTags'] as const },
  musicLookup: { all: ['MusicLookup'] as const, byUrl: (videoUrl: string) => ['MusicLookup', videoUrl] as const },
  musicBrainz: { all: ['MusicBrainz'] as const, search: (artist: string, title: string) => ['MusicBrainz', artist, title] as const },
  musicDownload: { all: ['MusicDownload'] as const },
  youtubeChannel: { all: ['YoutubeChannel'] as const, detail: (id: string) => ['YoutubeChannel', id] as const },
  youtubeUserChannel: { all: ['YoutubeUserChannel'] as const },
  youtubeChannelVideos: {
    all: ['YoutubeChannelVideos'] as const,
    byChannel: (channelId: string) => ['YoutubeChannelVideos', channelId] as const,
    list: (channelId: string, filters: Record<string, unknown>) => ['YoutubeChannelVideos', channelId, filters] as const,
  },
  youtubeSubscription: {
    all: ['YoutubeSubscription'] as const,
    list: (page: number, perPage: number) => ['YoutubeSubscription', 'list', { page, perPage }] as const,
  },
  youtubeVideo: {
    all: ['YoutubeVideo'] as const,
    list: (filters: Record<string, unknown>) => ['YoutubeVideo', 'list', filters] as const,
    detail: (id: string) => ['YoutubeVideo', 'detail', id] as const,
    /** Saved playback position of one video (never patched with the video's marks). */
    progress: (id: string) => ['YoutubeVideo', 'progress', id] as const,
  },
  /** Listen mode: the state of a video's audio (POST .../audio), polled while it is fetched. */
  youtubeAudio: { all: ['YoutubeAudio'] as const, detail: (id: string) => ['YoutubeAudio', id] as const },
  youtubeVideoCategory: { all: ['YoutubeVideoCategory'] as const },
  youtubeLikeVideos: { all: ['YoutubeLikeVideos'] as const },
  youtubeQueueVideos: { all: ['YoutubeQueueVideos'] as const },
  /** SponsorBlock: the user's category actions and each video's segments (with those actions), refreshed together. */
  youtubeSponsorblock: {
    all: ['YoutubeSponsorblock'] as const,
    settings: () => ['YoutubeSponsorblock', 'settings'] as const,
    segments: (id: string) => ['YoutubeSponsorblock', 'segments', id] as const,
  },
  /** GET /youtube/podcasts: the user's feeds (the channel switches read it too). */
  youtubePodcast: { all: ['YoutubePodcast'] as const },
  youtubeKeep: {
    all: ['YoutubeKeep'] as const,
    rule: (channelId: string) => ['YoutubeKeep', 'rule', channelId] as const,
    kept: (page: number, perPage: number) => ['YoutubeKeep', 'kept', { page, perPage }] as const,
    ofChannel: (channelId: string) => ['YoutubeKeep', 'channel', channelId] as const,
  },
  admin: {
    all: ['Admin'] as const,
    status: () => ['Admin', 'status'] as const,
    users: (filters: { page: number; q: string }) => ['Admin', 'users', filters] as const,
    jobs: () => ['Admin', 'jobs'] as const,
    schedules: () => ['Admin', 'schedules'] as const,
    mail: () => ['Admin', 'mail'] as const,
  },
  notifications: { all: ['Notifications'] as const },
} as const
