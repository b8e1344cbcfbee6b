-- Scope kinds are registered (src/common/scope-kinds.ts, listed in src/scope-kinds.ts): site, member,
-- group and project. Until now any lower-case word was accepted as `scope`, so rows may be stored in kinds
-- nobody declares; no request could reach them through a registered kind any more. They move to their
-- creator's member scope (scope 'member', scope_id = created_by), which keeps who sees and who changes
-- them: in an undeclared kind private records were their creator's and administrators', published ones
-- shown at their level, and only the creator and administrators could change them — the same as in a
-- member scope. A name (wiki pagename, blog alias) already taken there, or by an earlier row of the same
-- creator moving there, gets the row's id appended (`_<id>`, `-<id>`, the suffixes the services derive).
-- The list_counts and list_versions triggers move the counts with the rows. Nothing else changes
-- (modified times included: no one edited these records). docs/decisions.md, "Scope kinds".

WITH moving AS (
  SELECT id, created_by, pagename, row_number() OVER (PARTITION BY created_by, pagename ORDER BY id) AS nth
  FROM wiki_pages
  WHERE scope NOT IN ('site', 'member', 'group', 'project')
)
UPDATE wiki_pages p
SET scope = 'member',
    scope_id = m.created_by,
    pagename = CASE
      WHEN m.nth > 1 OR EXISTS (SELECT 1 FROM wiki_pages o WHERE o.scope = 'member' AND o.scope_id = m.created_by AND o.pagename = m.pagename)
        THEN m.pagename || '_' || m.id
      ELSE m.pagename
    END
FROM moving m
WHERE p.id = m.id;

WITH moving AS (
  SELECT id, created_by, alias, row_number() OVER (PARTITION BY created_by, alias ORDER BY id) AS nth
  FROM blog_entries
  WHERE scope NOT IN ('site', 'member', 'group', 'project')
)
UPDATE blog_entries b
SET scope = 'member',
    scope_id = m.created_by,
    alias = CASE
      WHEN m.nth > 1 OR EXISTS (SELECT 1 FROM blog_entries o WHERE o.scope = 'member' AND o.scope_id = m.created_by AND o.alias = m.alias)
        THEN m.alias || '-' || m.id
      ELSE m.alias
    END
FROM moving m
WHERE b.id = m.id;
