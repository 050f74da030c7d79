CREATE TABLE "youtube_keep_quotas" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"quota_mb" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "youtube_keep_rules" (
	"user_id" uuid NOT NULL,
	"channel_id" text NOT NULL,
	"enabled" boolean NOT NULL,
	"keep_last" integer DEFAULT 20 NOT NULL,
	"max_height" integer DEFAULT 1080 NOT NULL,
	"delete_watched_after_days" integer,
	"include_shorts" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "youtube_keep_rules_user_id_channel_id_pk" PRIMARY KEY("user_id","channel_id")
);
--> statement-breakpoint
CREATE TABLE "youtube_keeps" (
	"user_id" uuid NOT NULL,
	"video_id" text NOT NULL,
	"pinned" boolean DEFAULT false NOT NULL,
	"max_height" integer NOT NULL,
	"error" text,
	"error_kind" text,
	"removed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "youtube_keeps_user_id_video_id_pk" PRIMARY KEY("user_id","video_id")
);
--> statement-breakpoint
CREATE TABLE "youtube_kept_files" (
	"video_id" text PRIMARY KEY NOT NULL,
	"channel_id" text NOT NULL,
	"state" text NOT NULL,
	"want_height" integer NOT NULL,
	"height" integer,
	"file" text,
	"content_type" text,
	"size" bigint,
	"episode" integer,
	"error" text,
	"error_kind" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "youtube_keep_quotas" ADD CONSTRAINT "youtube_keep_quotas_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_keep_rules" ADD CONSTRAINT "youtube_keep_rules_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_keep_rules" ADD CONSTRAINT "youtube_keep_rules_channel_id_youtube_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."youtube_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_keeps" ADD CONSTRAINT "youtube_keeps_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_keeps" ADD CONSTRAINT "youtube_keeps_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_kept_files" ADD CONSTRAINT "youtube_kept_files_video_id_youtube_videos_id_fk" FOREIGN KEY ("video_id") REFERENCES "public"."youtube_videos"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "youtube_kept_files" ADD CONSTRAINT "youtube_kept_files_channel_id_youtube_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."youtube_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "youtube_keeps_user_idx" ON "youtube_keeps" USING btree ("user_id","created_at") WHERE "youtube_keeps"."removed_at" is null;--> statement-breakpoint
CREATE INDEX "youtube_keeps_video_idx" ON "youtube_keeps" USING btree ("video_id");--> statement-breakpoint
CREATE INDEX "youtube_kept_files_channel_idx" ON "youtube_kept_files" USING btree ("channel_id");