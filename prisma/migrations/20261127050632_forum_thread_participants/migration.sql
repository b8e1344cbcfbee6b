-- CreateTable
CREATE TABLE "forum_thread_participants" (
    "thread_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "last_post_id" INTEGER NOT NULL,

    CONSTRAINT "forum_thread_participants_pkey" PRIMARY KEY ("thread_id","user_id")
);

-- CreateIndex
CREATE INDEX "forum_thread_participants_thread_id_last_post_id_idx" ON "forum_thread_participants"("thread_id", "last_post_id");

-- CreateIndex
CREATE INDEX "forum_posts_thread_id_created_by_idx" ON "forum_posts"("thread_id", "created_by");

-- AddForeignKey
ALTER TABLE "forum_thread_participants" ADD CONSTRAINT "forum_thread_participants_thread_id_fkey" FOREIGN KEY ("thread_id") REFERENCES "forum_posts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "forum_thread_participants" ADD CONSTRAINT "forum_thread_participants_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Written by hand: the participants follow the posts as they are written (a post's author becomes, or stays,
-- a participant of its thread, with their latest post there). Deleting posts leaves participants: the entries
-- sent to them are filtered by who may read the post anyway.
CREATE FUNCTION forum_thread_participants_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO forum_thread_participants (thread_id, user_id, last_post_id) VALUES (NEW.thread_id, NEW.created_by, NEW.id)
  ON CONFLICT (thread_id, user_id) DO UPDATE SET last_post_id = greatest(forum_thread_participants.last_post_id, EXCLUDED.last_post_id);
  RETURN NULL;
END $$;
CREATE TRIGGER forum_thread_participants_add AFTER INSERT ON forum_posts FOR EACH ROW EXECUTE FUNCTION forum_thread_participants_add();
-- A post given to another author (an administrator's change): the new author takes part from then on.
CREATE TRIGGER forum_thread_participants_author AFTER UPDATE OF created_by ON forum_posts FOR EACH ROW
  WHEN (OLD.created_by IS DISTINCT FROM NEW.created_by) EXECUTE FUNCTION forum_thread_participants_add();

INSERT INTO forum_thread_participants (thread_id, user_id, last_post_id)
  SELECT p.thread_id, p.created_by, max(p.id) FROM forum_posts p JOIN forum_posts t ON t.id = p.thread_id GROUP BY p.thread_id, p.created_by;
