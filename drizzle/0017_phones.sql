CREATE TABLE "subsonic_bookmarks" (
	"user_id" uuid NOT NULL,
	"item_id" text NOT NULL,
	"position" bigint DEFAULT 0 NOT NULL,
	"comment" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subsonic_bookmarks_user_id_item_id_pk" PRIMARY KEY("user_id","item_id")
);
--> statement-breakpoint
CREATE TABLE "youtube_podcast_skips" (
	"user_id" uuid NOT NULL,
	"video_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "youtube_podcast_skips_user_id_video_id_pk" PRIMARY KEY("user_id","video_id")
);
--> statement-breakpoint
ALTER TABLE "subsonic_play_queues" ADD COLUMN "current_index" integer;--> statement-breakpoint
ALTER TABLE "youtube_podcast_episodes" ADD COLUMN "spans" jsonb;--> statement-breakpoint
ALTER TABLE "youtube_podcast_secrets" ADD COLUMN "first_secret" text;--> statement-breakpoint
ALTER TABLE "subsonic_bookmarks" ADD CONSTRAINT "subsonic_bookmarks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_podcast_skips" ADD CONSTRAINT "youtube_podcast_skips_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_podcast_skips" ADD CONSTRAINT "youtube_podcast_skips_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;