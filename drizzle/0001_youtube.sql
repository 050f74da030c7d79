CREATE TABLE "youtube_channels" (
	"id" text PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"handle" text,
	"thumbnail" text DEFAULT '' NOT NULL,
	"uploads_playlist_id" text,
	"refreshed_at" timestamp with time zone,
	"refresh_started_at" timestamp with time zone,
	"refresh_heartbeat_at" timestamp with time zone,
	"refresh_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_likes" (
	"user_id" uuid NOT NULL,
	"video_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "youtube_likes_user_id_video_id_pk" PRIMARY KEY("user_id","video_id")
);
--> statement-breakpoint
CREATE TABLE "youtube_playback_progress" (
	"user_id" uuid NOT NULL,
	"video_id" text NOT NULL,
	"played_seconds" real NOT NULL,
	"duration" real NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "youtube_playback_progress_user_id_video_id_pk" PRIMARY KEY("user_id","video_id")
);
--> statement-breakpoint
CREATE TABLE "youtube_queue_entries" (
	"user_id" uuid NOT NULL,
	"video_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "youtube_queue_entries_user_id_video_id_pk" PRIMARY KEY("user_id","video_id")
);
--> statement-breakpoint
CREATE TABLE "youtube_quota_days" (
	"day" date PRIMARY KEY NOT NULL,
	"units" integer DEFAULT 0 NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"exhausted_at" timestamp with time zone,
	"cause" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_subscriptions" (
	"user_id" uuid NOT NULL,
	"channel_id" text NOT NULL,
	"source" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	"deleted_by" text,
	CONSTRAINT "youtube_subscriptions_user_id_channel_id_pk" PRIMARY KEY("user_id","channel_id")
);
--> statement-breakpoint
CREATE TABLE "youtube_user_channels" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"channel_id" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"synced_at" timestamp with time zone,
	"sync_error" text
);
--> statement-breakpoint
CREATE TABLE "youtube_video_categories" (
	"id" integer PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"assignable" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_videos" (
	"id" text PRIMARY KEY NOT NULL,
	"channel_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"thumbnail" text DEFAULT '' NOT NULL,
	"published_at" timestamp with time zone NOT NULL,
	"category_id" integer NOT NULL,
	"duration" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_watches" (
	"user_id" uuid NOT NULL,
	"video_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "youtube_watches_user_id_video_id_pk" PRIMARY KEY("user_id","video_id")
);
--> statement-breakpoint
ALTER TABLE "youtube_likes" ADD CONSTRAINT "youtube_likes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_likes" ADD CONSTRAINT "youtube_likes_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_playback_progress" ADD CONSTRAINT "youtube_playback_progress_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_playback_progress" ADD CONSTRAINT "youtube_playback_progress_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_queue_entries" ADD CONSTRAINT "youtube_queue_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_queue_entries" ADD CONSTRAINT "youtube_queue_entries_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_subscriptions" ADD CONSTRAINT "youtube_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_subscriptions" ADD CONSTRAINT "youtube_subscriptions_channel_id_youtube_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."youtube_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_user_channels" ADD CONSTRAINT "youtube_user_channels_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_videos" ADD CONSTRAINT "youtube_videos_channel_id_youtube_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."youtube_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_watches" ADD CONSTRAINT "youtube_watches_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_watches" ADD CONSTRAINT "youtube_watches_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "youtube_channels_handle_idx" ON "youtube_channels" USING btree ("handle");--> statement-breakpoint
CREATE INDEX "youtube_likes_user_created_idx" ON "youtube_likes" USING btree ("user_id","created_at","video_id");--> statement-breakpoint
CREATE INDEX "youtube_queue_entries_user_created_idx" ON "youtube_queue_entries" USING btree ("user_id","created_at","video_id");--> statement-breakpoint
CREATE INDEX "youtube_subscriptions_channel_idx" ON "youtube_subscriptions" USING btree ("channel_id") WHERE "youtube_subscriptions"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "youtube_videos_channel_published_idx" ON "youtube_videos" USING btree ("channel_id","published_at","id");--> statement-breakpoint
CREATE INDEX "youtube_videos_published_idx" ON "youtube_videos" USING btree ("published_at","id");--> statement-breakpoint
CREATE INDEX "youtube_videos_category_published_idx" ON "youtube_videos" USING btree ("category_id","published_at","id");--> statement-breakpoint
CREATE INDEX "youtube_watches_user_created_idx" ON "youtube_watches" USING btree ("user_id","created_at","video_id");