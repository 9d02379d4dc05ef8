"""The store's schema, as the steps that build it: step N takes a store from version N-1 to N
(SQLite's ``user_version``; PostgreSQL's ``store_version`` table). A step is never edited once
released; a change is a new step, written in each backend's dialect."""

from __future__ import annotations

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            label TEXT,
            session TEXT NOT NULL,
            status TEXT NOT NULL,
            owner TEXT,
            done INTEGER NOT NULL DEFAULT 0,
            total INTEGER,
            current TEXT,
            created_at REAL NOT NULL,
            started_at REAL,
            updated_at REAL NOT NULL,
            finished_at REAL,
            error_code TEXT,
            error_message TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            cancel TEXT,
            result TEXT,
            source TEXT
        )""",
        "CREATE INDEX runs_by_created ON runs (created_at DESC, id)",
        "CREATE INDEX runs_by_status ON runs (status, owner)",
        """CREATE TABLE run_log (
            run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            at REAL NOT NULL,
            level TEXT NOT NULL,
            message TEXT NOT NULL,
            PRIMARY KEY (run_id, seq)
        ) WITHOUT ROWID""",
        """CREATE TABLE run_frontier (
            run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            part INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            url TEXT NOT NULL,
            depth INTEGER NOT NULL,
            PRIMARY KEY (run_id, part, seq)
        ) WITHOUT ROWID""",
        # A rowid table, its key a unique index: its rows hold a page each (kilobytes), too large
        # for WITHOUT ROWID.
        """CREATE TABLE run_items (
            run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            part INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            kind TEXT NOT NULL,
            url TEXT NOT NULL,
            canonical TEXT,
            body TEXT NOT NULL
        )""",
        "CREATE UNIQUE INDEX run_items_key ON run_items (run_id, part, seq)",
    ),
    (
        """CREATE TABLE projects (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            definition TEXT NOT NULL,
            variables TEXT NOT NULL,
            schedule TEXT,
            secret TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )""",
        "CREATE INDEX projects_by_updated ON projects (updated_at DESC, id)",
        # A row's data is JSON (its properties); its key (a declared property's value, or its
        # content's hash) makes a re-run write only what is new or changed.
        """CREATE TABLE dataset_rows (
            project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
            dataset TEXT NOT NULL,
            key TEXT NOT NULL,
            run_id TEXT NOT NULL,
            data TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )""",
        "CREATE UNIQUE INDEX dataset_rows_key ON dataset_rows (project_id, dataset, key)",
        "CREATE INDEX dataset_rows_by_created ON dataset_rows (project_id, dataset, created_at "
        "DESC)",
    ),
    (
        # The runs of a project (run_project_by_name's arguments name no id): its latest, to resume
        # or retry; its logs. A run outlives its project's deletion, the link does not.
        """CREATE TABLE project_runs (
            project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
            run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            PRIMARY KEY (project_id, run_id)
        ) WITHOUT ROWID""",
        "CREATE INDEX project_runs_by_run ON project_runs (run_id)",
        # A feed project's last good feed, as served at /feeds/{name}: a failed refresh keeps it and
        # says why.
        """CREATE TABLE project_feeds (
            project_id TEXT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
            run_id TEXT,
            rss TEXT,
            json TEXT,
            etag TEXT,
            built_at REAL,
            failed_at REAL,
            failure TEXT
        )""",
    ),
    (
        # The local index of scans (scan_url, scan_site; get_index_entry reads it): each scan's
        # result, and its evidence (canonical JSON, zlib-compressed) so a scan can be scored again.
        """CREATE TABLE scans (
            id TEXT PRIMARY KEY,
            domain TEXT NOT NULL,
            url TEXT NOT NULL,
            scanned_at REAL NOT NULL,
            outcome TEXT NOT NULL,
            reason TEXT,
            grade TEXT,
            score INTEGER,
            evidence_hash TEXT NOT NULL,
            result TEXT NOT NULL,
            evidence BLOB NOT NULL,
            run_id TEXT
        )""",
        "CREATE INDEX scans_by_domain ON scans (domain, scanned_at DESC)",
        "CREATE INDEX scans_by_run ON scans (run_id)",
    ),
    (
        # A crawl holds a bounded part of its frontier in memory and asks the store for the rest:
        # whether a URL is queued already, at which URL a page of a canonical URL was read. A visit
        # counts the links its page gave that the crawl did not queue.
        "CREATE INDEX run_frontier_by_url ON run_frontier (run_id, part, url)",
        "CREATE INDEX run_items_by_canonical ON run_items (run_id, part, canonical, seq) WHERE "
        "canonical IS NOT NULL",
        "ALTER TABLE run_items ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0",
    ),
    (
        # A crawl worked by several processes at once (netglean.scraping.fleet): the URLs it has
        # queued are unique (a page is queued and recorded once, whoever found it); those waiting
        # to be read are claimed in host slices, each claim a lease a dead worker's claims lose.
        # Politeness across processes: each host's next turn and the requests in flight to it.
        "DELETE FROM run_frontier WHERE EXISTS (SELECT 1 FROM run_frontier e WHERE e.run_id = "
        "run_frontier.run_id AND e.part = run_frontier.part AND e.url = run_frontier.url AND "
        "e.seq < run_frontier.seq)",
        "DROP INDEX run_frontier_by_url",
        "CREATE UNIQUE INDEX run_frontier_by_url ON run_frontier (run_id, part, url)",
        """CREATE TABLE crawl_waiting (
            run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            part INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            url TEXT NOT NULL,
            depth INTEGER NOT NULL,
            host TEXT NOT NULL,
            claimed_by TEXT,
            lease_until REAL,
            PRIMARY KEY (run_id, part, seq)
        ) WITHOUT ROWID""",
        "CREATE INDEX crawl_waiting_by_host ON crawl_waiting (run_id, part, host, seq)",
        """CREATE TABLE host_turns (
            host TEXT PRIMARY KEY,
            last_start REAL NOT NULL
        ) WITHOUT ROWID""",
        """CREATE TABLE host_slots (
            host TEXT NOT NULL,
            holder TEXT NOT NULL,
            lease_until REAL NOT NULL,
            PRIMARY KEY (host, holder)
        ) WITHOUT ROWID""",
    ),
)

_TEXT = 'TEXT COLLATE "C"'
"""Text compared and sorted by its bytes (UTF-8: by code point), as SQLite compares it."""
_TIME = "DOUBLE PRECISION"

POSTGRESQL_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        f"""CREATE TABLE runs (
            id {_TEXT} PRIMARY KEY,
            tool {_TEXT} NOT NULL,
            arguments TEXT NOT NULL,
            label TEXT,
            session {_TEXT} NOT NULL,
            status {_TEXT} NOT NULL,
            owner {_TEXT},
            done BIGINT NOT NULL DEFAULT 0,
            total BIGINT,
            current TEXT,
            created_at {_TIME} NOT NULL,
            started_at {_TIME},
            updated_at {_TIME} NOT NULL,
            finished_at {_TIME},
            error_code TEXT,
            error_message TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            cancel TEXT,
            result TEXT,
            source TEXT
        )""",
        "CREATE INDEX runs_by_created ON runs (created_at DESC, id)",
        "CREATE INDEX runs_by_status ON runs (status, owner)",
        f"""CREATE TABLE run_log (
            run_id {_TEXT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            seq BIGINT NOT NULL,
            at {_TIME} NOT NULL,
            level TEXT NOT NULL,
            message TEXT NOT NULL,
            PRIMARY KEY (run_id, seq)
        )""",
        f"""CREATE TABLE run_frontier (
            run_id {_TEXT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            part INTEGER NOT NULL,
            seq BIGINT NOT NULL,
            url {_TEXT} NOT NULL,
            depth INTEGER NOT NULL,
            PRIMARY KEY (run_id, part, seq)
        )""",
        f"""CREATE TABLE run_items (
            run_id {_TEXT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            part INTEGER NOT NULL,
            seq BIGINT NOT NULL,
            kind TEXT NOT NULL,
            url {_TEXT} NOT NULL,
            canonical {_TEXT},
            body TEXT NOT NULL
        )""",
        "CREATE UNIQUE INDEX run_items_key ON run_items (run_id, part, seq)",
    ),
    (
        f"""CREATE TABLE projects (
            id {_TEXT} PRIMARY KEY,
            name {_TEXT} NOT NULL UNIQUE,
            kind {_TEXT} NOT NULL,
            definition TEXT NOT NULL,
            variables TEXT NOT NULL,
            schedule {_TEXT},
            secret TEXT NOT NULL,
            created_at {_TIME} NOT NULL,
            updated_at {_TIME} NOT NULL
        )""",
        "CREATE INDEX projects_by_updated ON projects (updated_at DESC, id)",
        # A row's data is JSONB: the filter language compiles to its operators.
        f"""CREATE TABLE dataset_rows (
            project_id {_TEXT} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
            dataset {_TEXT} NOT NULL,
            key {_TEXT} NOT NULL,
            run_id {_TEXT} NOT NULL,
            data JSONB NOT NULL,
            created_at {_TIME} NOT NULL,
            updated_at {_TIME} NOT NULL
        )""",
        "CREATE UNIQUE INDEX dataset_rows_key ON dataset_rows (project_id, dataset, key)",
        "CREATE INDEX dataset_rows_by_created ON dataset_rows (project_id, dataset, created_at "
        "DESC)",
    ),
    (
        f"""CREATE TABLE project_runs (
            project_id {_TEXT} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
            run_id {_TEXT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            PRIMARY KEY (project_id, run_id)
        )""",
        "CREATE INDEX project_runs_by_run ON project_runs (run_id)",
        f"""CREATE TABLE project_feeds (
            project_id {_TEXT} PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
            run_id {_TEXT},
            rss TEXT,
            json TEXT,
            etag TEXT,
            built_at {_TIME},
            failed_at {_TIME},
            failure TEXT
        )""",
    ),
    (
        f"""CREATE TABLE scans (
            id {_TEXT} PRIMARY KEY,
            domain {_TEXT} NOT NULL,
            url TEXT NOT NULL,
            scanned_at {_TIME} NOT NULL,
            outcome TEXT NOT NULL,
            reason TEXT,
            grade TEXT,
            score INTEGER,
            evidence_hash TEXT NOT NULL,
            result TEXT NOT NULL,
            evidence BYTEA NOT NULL,
            run_id {_TEXT}
        )""",
        "CREATE INDEX scans_by_domain ON scans (domain, scanned_at DESC)",
        "CREATE INDEX scans_by_run ON scans (run_id)",
    ),
    (
        "CREATE INDEX run_frontier_by_url ON run_frontier (run_id, part, url)",
        "CREATE INDEX run_items_by_canonical ON run_items (run_id, part, canonical, seq) WHERE "
        "canonical IS NOT NULL",
        "ALTER TABLE run_items ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0",
    ),
    (
        "DELETE FROM run_frontier f USING run_frontier e WHERE e.run_id = f.run_id AND "
        "e.part = f.part AND e.url = f.url AND e.seq < f.seq",
        "DROP INDEX run_frontier_by_url",
        "CREATE UNIQUE INDEX run_frontier_by_url ON run_frontier (run_id, part, url)",
        f"""CREATE TABLE crawl_waiting (
            run_id {_TEXT} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            part INTEGER NOT NULL,
            seq BIGINT NOT NULL,
            url {_TEXT} NOT NULL,
            depth INTEGER NOT NULL,
            host {_TEXT} NOT NULL,
            claimed_by {_TEXT},
            lease_until {_TIME},
            PRIMARY KEY (run_id, part, seq)
        )""",
        "CREATE INDEX crawl_waiting_by_host ON crawl_waiting (run_id, part, host, seq)",
        f"""CREATE TABLE host_turns (
            host {_TEXT} PRIMARY KEY,
            last_start {_TIME} NOT NULL
        )""",
        f"""CREATE TABLE host_slots (
            host {_TEXT} NOT NULL,
            holder {_TEXT} NOT NULL,
            lease_until {_TIME} NOT NULL,
            PRIMARY KEY (host, holder)
        )""",
    ),
)
"""The same steps in PostgreSQL's dialect, step for step (a step added to one is added to both);
the version is the one row of the table ``store_version``."""
