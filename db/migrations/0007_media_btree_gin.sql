-- GIN indexes that lead with workspace_id (media tags and search) need btree_gin for the text column.
CREATE EXTENSION IF NOT EXISTS btree_gin;
