import {
  CameraIcon,
  CarIcon,
  ClapperboardIcon,
  DramaIcon,
  FilmIcon,
  FlaskConicalIcon,
  Gamepad2Icon,
  GhostIcon,
  GraduationCapIcon,
  HandHeartIcon,
  HouseIcon,
  LandmarkIcon,
  LanguagesIcon,
  LaughIcon,
  LightbulbIcon,
  type LucideIcon,
  MonitorPlayIcon,
  MusicIcon,
  NewspaperIcon,
  PawPrintIcon,
  PlaneIcon,
  PopcornIcon,
  ProjectorIcon,
  RocketIcon,
  SmartphoneIcon,
  SparklesIcon,
  SwordsIcon,
  TrophyIcon,
  TvIcon,
  UsersIcon,
  VideoIcon,
} from 'lucide-react'

/**
 * An icon for each video category of docs/product.md#video-categories except thriller (41), which has
 * none. The spec gives scifi fantasy the id 38 (foreign's), which it calls a
 * probable mistake: YouTube's id 40 gets the rocket, 38 stays foreign.
 * YouTube's second comedy id (34) shares comedy's icon.
 */
export const CATEGORY_ICONS: Readonly<Record<number, LucideIcon>> = {
  1: ClapperboardIcon, // film and animation
  2: CarIcon, // autos and vehicles
  10: MusicIcon, // music
  15: PawPrintIcon, // pets and animals
  17: TrophyIcon, // sports
  18: FilmIcon, // short movies
  19: PlaneIcon, // travel and events
  20: Gamepad2Icon, // gaming
  21: VideoIcon, // videoblogging
  22: UsersIcon, // people and blogs
  23: LaughIcon, // comedy
  24: TvIcon, // entertainment
  25: NewspaperIcon, // news and politics
  26: LightbulbIcon, // howto and style
  27: GraduationCapIcon, // education
  28: FlaskConicalIcon, // science and technology
  29: HandHeartIcon, // nonprofits and activism
  30: PopcornIcon, // movies
  31: SparklesIcon, // anime animation
  32: SwordsIcon, // action adventure
  33: LandmarkIcon, // classics
  34: LaughIcon, // comedy (YouTube's second id)
  35: CameraIcon, // documentary
  36: DramaIcon, // drama
  37: HouseIcon, // family
  38: LanguagesIcon, // foreign
  39: GhostIcon, // horror
  40: RocketIcon, // scifi fantasy
  42: SmartphoneIcon, // shorts
  43: MonitorPlayIcon, // shows
  44: ProjectorIcon, // trailers
}

/** The icon of a category, or undefined (thriller, unknown ids). */
export function categoryIcon(id: number): LucideIcon | undefined {
  return CATEGORY_ICONS[id]
}
