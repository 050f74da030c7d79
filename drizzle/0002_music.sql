CREATE TABLE "music_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"video_url" text,
	"original_filename" text,
	"upload_file" text,
	"artwork_url" text,
	"artwork_file" text,
	"title" text NOT NULL,
	"artist" text NOT NULL,
	"album" text NOT NULL,
	"grouping" text,
	"progress" integer DEFAULT 0 NOT NULL,
	"output_file" text,
	"webdav" text,
	"webdav_error" text,
	"error" text,
	"started_at" timestamp with time zone,
	"completed" timestamp with time zone,
	"failed" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "music_jobs" ADD CONSTRAINT "music_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "music_jobs_user_created_idx" ON "music_jobs" USING btree ("user_id","created_at");