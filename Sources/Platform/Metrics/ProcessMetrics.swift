import Foundation
import Metrics

/// The process's own figures, Prometheus's usual names, read from `/proc/self` each time
/// `/metrics` is written (Linux; elsewhere nothing): `process_resident_memory_bytes`,
/// `process_virtual_memory_bytes`, `process_cpu_seconds_total`, `process_open_fds`,
/// `process_max_fds`, `process_start_time_seconds`.
package enum ProcessMetrics {
    /// CPU seconds already counted, so the counter grows by what was used since.
    nonisolated(unsafe) private static var countedCPU: Double = 0
    private static let lock = NSLock()

    package static func sample() {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return }
        // Fields after the command's name, which may hold spaces: state is field 3 (index 0 here).
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 21, let utime = Double(fields[11]), let stime = Double(fields[12]),
              let startTicks = Double(fields[19]), let virtual = Double(fields[20]), let residentPages = Double(fields[21])
        else { return }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        Gauge(label: "process_resident_memory_bytes").record(residentPages * pageSize)
        Gauge(label: "process_virtual_memory_bytes").record(virtual)
        let cpu = (utime + stime) / ticks
        lock.lock()
        let grown = cpu - countedCPU
        if grown > 0 { countedCPU = cpu }
        lock.unlock()
        if grown > 0 { FloatingPointCounter(label: "process_cpu_seconds_total").increment(by: grown) }
        if let boot = bootTime() { Gauge(label: "process_start_time_seconds").record(boot + startTicks / ticks) }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        Gauge(label: "process_open_fds").record(Double(descriptors))
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 { Gauge(label: "process_max_fds").record(Double(limit.rlim_cur)) }
        #endif
    }

    /// When the machine started, in seconds since 1970 (`btime` of `/proc/stat`).
    private static func bootTime() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        return stat.split(separator: "\n").first { $0.hasPrefix("btime ") }.flatMap { Double($0.dropFirst(6)) }
    }
}
