CREATE TABLE "youtube_podcast_episodes" (
	"video_id" text NOT NULL,
	"cut" text NOT NULL,
	"state" text NOT NULL,
	"error" text,
	"file" text,
	"size" bigint,
	"duration" real,
	"removed" real DEFAULT 0 NOT NULL,
	"uncut" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"failed_at" timestamp with time zone,
	"played_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "youtube_podcast_episodes_video_id_cut_pk" PRIMARY KEY("video_id","cut")
);
--> statement-breakpoint
ALTER TABLE "youtube_podcast_episodes" ADD CONSTRAINT "youtube_podcast_episodes_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;