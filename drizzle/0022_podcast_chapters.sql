CREATE TABLE "youtube_audio_texts" (
	"video_id" text PRIMARY KEY NOT NULL,
	"chapters" jsonb NOT NULL,
	"subtitles" text,
	"subtitles_lang" text,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_podcast_episode_texts" (
	"video_id" text NOT NULL,
	"cut" text NOT NULL,
	"chapters" text,
	"transcript" text,
	CONSTRAINT "youtube_podcast_episode_texts_video_id_cut_pk" PRIMARY KEY("video_id","cut")
);
--> statement-breakpoint
ALTER TABLE "youtube_podcast_episodes" ADD COLUMN "chapter_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "youtube_podcast_episodes" ADD COLUMN "transcript_lang" text;--> statement-breakpoint
ALTER TABLE "youtube_audio_texts" ADD CONSTRAINT "youtube_audio_texts_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_podcast_episode_texts" ADD CONSTRAINT "youtube_podcast_episode_texts_video_id_cut_youtube_podcast_episodes_video_id_cut_fk" FOREIGN KEY ("video_id","cut") REFERENCES "public"."youtube_podcast_episodes"("video_id","cut") ON DELETE cascade ON UPDATE no action;