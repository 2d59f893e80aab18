#if canImport(Glibc)
import Glibc
#endif

/// The end of the journal's file mapped into memory (`MAP_SHARED`) and allocated ahead of the
/// frames, so that a commit is a memory copy instead of a `pwritev` (docs/journal.md, "A commit is a
/// memory copy"). The pages of a shared mapping are the file's page cache: what is copied into them
/// is in the kernel the moment it is copied, and outlives a crash of the process as a written page
/// does; a power cut is the flush thread's job, as before (`fdatasync` writes these pages too).
///
/// The file is grown with `posix_fallocate` before a frame is copied past its size, so a copy never
/// touches a hole (a page fault on a full disk would be a `SIGBUS`) nor a page past the end of the
/// file. Space allocated ahead reads as zeros: a frame header of zeros is not a frame (it holds no
/// record), so a reader stops there as at a torn write. The owner cuts the file back to its frames
/// when it closes it.
///
/// A flush (`fdatasync`) write-protects every page it writes back, so the next commit's copy into a
/// page flushed would take a page fault, `ext4`'s `page_mkwrite` (161 a second in the one-CPU relay,
/// one round trip in 180): the flush thread faults the pages the next commits write back in,
/// writable, right after its flush (`JournalSync`).
final class MappedSegment: @unchecked Sendable {
    // @unchecked: the flush thread calls `populate` alone, which reads only what never changes
    // (`base`, `start`, `length`); `allocatedEnd` is the writer's.
    let descriptor: Int32
    /// The file offset the mapping starts at (a multiple of the page size).
    let start: Int
    /// The bytes mapped from `start` (most of them past the file's end until allocated).
    let length: Int
    /// Where the file's allocated size ends: the mapping may be written below it.
    private(set) var allocatedEnd: Int
    private let base: UnsafeMutableRawPointer

    /// The virtual size of a mapping: a commit remaps only when it passes this much.
    static let mappedBytes = 64 << 20
    /// The least and the most allocated ahead at a time: an eighth of the file between the two, so a
    /// small journal ends in at most a page of zeros and a large one grows a MiB per system call.
    static let leastAhead = 4_096
    static let mostAhead = 1 << 20
    static let pageBytes = max(4_096, Int(sysconf(Int32(_SC_PAGESIZE))))
    /// `MADV_POPULATE_WRITE` (Linux 5.14), absent from older headers; an older kernel refuses it.
    static let populateWrite: Int32 = 23

    /// Maps the file from the page that holds `offset` (where the next frame goes) for `mappedBytes`.
    /// Nil when it cannot be mapped (then the log writes with `pwritev`).
    init?(descriptor: Int32, from offset: Int, fileSize: Int) {
        let start = offset / Self.pageBytes * Self.pageBytes
        let mapped = mmap(nil, Self.mappedBytes, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, off_t(start))
        guard let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        self.descriptor = descriptor
        self.start = start
        self.length = Self.mappedBytes
        self.base = mapped
        self.allocatedEnd = fileSize
    }

    deinit { munmap(base, length) }

    /// Whether `count` bytes at `offset` lie inside the mapping.
    func maps(_ offset: Int, count: Int) -> Bool { offset >= start && offset + count <= start + length }

    /// Allocates the file at least up to `needed` (inside the mapping), and some ahead: returns 0, or
    /// the error number of `posix_fallocate` (`ENOSPC`, `EFBIG`, …), the size then possibly grown part
    /// of the way (the owner cuts it back).
    func allocate(upTo needed: Int, frames end: Int) -> Int32 {
        guard needed > allocatedEnd else { return 0 }
        let ahead = min(Self.mostAhead, max(Self.leastAhead, end / 8))
        let target = min(start + length, (needed + ahead + Self.pageBytes - 1) / Self.pageBytes * Self.pageBytes)
        var failure: Int32
        repeat { failure = posix_fallocate(descriptor, off_t(allocatedEnd), off_t(target - allocatedEnd)) } while failure == EINTR
        guard failure == 0 else { return failure }
        // Fault the new pages in now, writable, so that a commit's copy does not take the page fault.
        populate(allocatedEnd / Self.pageBytes * Self.pageBytes ..< target)
        allocatedEnd = target
        return 0
    }

    /// The allocated pages from the one holding `offset` to `bytes` past it: where the next commits copy.
    func pages(from offset: Int, bytes: Int) -> Range<Int>? {
        let from = max(start, offset / Self.pageBytes * Self.pageBytes)
        let to = min(allocatedEnd, (offset + bytes + Self.pageBytes - 1) / Self.pageBytes * Self.pageBytes)
        return from < to ? from ..< to : nil
    }

    /// Faults the pages of `range` (file offsets inside the mapping) in, writable (`MADV_POPULATE_WRITE`:
    /// an error, not a `SIGBUS`, for a page the file no longer holds; an older kernel refuses it).
    func populate(_ range: Range<Int>) {
        guard range.lowerBound >= start, range.upperBound <= start + length, !range.isEmpty else { return }
        _ = madvise(base + (range.lowerBound - start), range.count, Self.populateWrite)
    }

    /// Copies `header` then `records` to `offset`, which lies with them below `allocatedEnd`.
    func copy(_ header: UnsafeRawBufferPointer, _ records: UnsafeRawBufferPointer, at offset: Int) {
        precondition(offset >= start && offset + header.count + records.count <= allocatedEnd, "a frame is copied inside the allocated segment")
        let at = base + (offset - start)
        at.copyMemory(from: header.baseAddress!, byteCount: header.count)
        if records.count > 0 { (at + header.count).copyMemory(from: records.baseAddress!, byteCount: records.count) }
    }
}
