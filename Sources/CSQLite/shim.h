#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call: whether closing the last connection
// checkpoints the WAL into the database file (flowd turns that off: it only reads an older
// flowd's journal, and a refused file is left exactly as it was found).
static inline int csqlite_checkpoint_on_close(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on ? 0 : 1, (int *)0);
}
