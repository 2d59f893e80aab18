#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline void (*csqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
