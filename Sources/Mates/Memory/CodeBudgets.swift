import Metrics
import Platform
import Vapor

/// The budgets of verification codes beyond one inbox and one account: per client network (an
/// IPv4 address or an IPv6 /64, with its /48 ten times as large; `MATES_CODES_PER_ADDRESS_HOUR`
/// and `_DAY`), and for the whole service per channel and hour (`MATES_SMS_PER_HOUR`,
/// `MATES_EMAILS_PER_HOUR`), which bounds what the operator pays however the sends are spread.
/// Shared by the instances on PostgreSQL (`SharedBudgets`).
final class CodeBudgets: Sendable {
    private let networkHourly: NetworkBudget
    private let networkDaily: NetworkBudget
    private let sms: RateLimiter
    private let email: RateLimiter

    init(settings: MatesSettings, shared: SharedBudgets?) {
        networkHourly = NetworkBudget(name: "mates_codes_hour", limit: settings.codesPerAddressPerHour, window: 3600, shared: shared)
        networkDaily = NetworkBudget(name: "mates_codes_day", limit: settings.codesPerAddressPerDay, window: 24 * 3600, shared: shared)
        sms = RateLimiter(name: "mates_codes_sms", limit: settings.smsPerHour, window: 3600, shared: shared)
        email = RateLimiter(name: "mates_codes_email", limit: settings.emailsPerHour, window: 3600, shared: shared)
        // Present in `/metrics` from the start, at 0.
        for channel in VerificationChannel.allCases { Self.exhausted(channel).increment(by: 0) }
    }

    /// A slot of the service's hourly budget of one channel.
    struct ChannelSlot: Sendable {
        fileprivate let slot: RateLimiter.Slot
        fileprivate let limiter: RateLimiter

        func release() async { await limiter.release(slot) }
    }

    /// The slots one code took; given back when it is not sent.
    struct Slots: Sendable {
        fileprivate let budgets: CodeBudgets
        fileprivate let hourly: NetworkBudget.Slot
        fileprivate let daily: NetworkBudget.Slot
        fileprivate let channel: ChannelSlot

        func release() async {
            await budgets.networkHourly.release(hourly)
            await budgets.networkDaily.release(daily)
            await channel.release()
        }
    }

    /// Takes a slot of each budget for one code to `channel` from `client`, or throws 429: the
    /// network's `code_address_limit`, or the service's `code_channel_busy` (logged as an error and
    /// counted: the operator's budget for the hour is spent).
    func reserve(channel: VerificationChannel, client: ClientNetwork, logger: Logger) async throws -> Slots {
        let hourly = try await networkHourly.reserve(client, code: "code_address_limit")
        let daily: NetworkBudget.Slot
        do { daily = try await networkDaily.reserve(client, code: "code_address_limit") } catch {
            await networkHourly.release(hourly)
            throw error
        }
        let taken: Result<ChannelSlot, RateLimiter.Wait>
        do { taken = try await reserveChannel(channel, logger: logger) } catch {
            await networkHourly.release(hourly)
            await networkDaily.release(daily)
            throw error
        }
        switch taken {
        case .success(let slot):
            return Slots(budgets: self, hourly: hourly, daily: daily, channel: slot)
        case .failure(let wait):
            await networkHourly.release(hourly)
            await networkDaily.release(daily)
            throw wait.refusal("code_channel_busy")
        }
    }

    /// A slot of the service's hourly budget of `channel` alone (for a code whose asker's network
    /// was budgeted elsewhere: a password reset's), or how long it is spent for (logged as an
    /// error and counted).
    func reserveChannel(_ channel: VerificationChannel, logger: Logger) async throws -> Result<ChannelSlot, RateLimiter.Wait> {
        let limiter = channel == .phone ? sms : email
        switch try await limiter.tryReserve("all") {
        case .success(let slot):
            return .success(ChannelSlot(slot: slot, limiter: limiter))
        case .failure(let wait):
            Self.exhausted(channel).increment()
            logger.error("the hourly budget of \(channel.rawValue) codes (\(limiter.limit)) is spent: codes by \(channel.rawValue) wait \(wait.seconds) s")
            return .failure(wait)
        }
    }

    private static func exhausted(_ channel: VerificationChannel) -> Counter {
        Counter(label: "whatweeat_code_budget_exhausted_total", dimensions: [("channel", channel == .phone ? "sms" : "email")])
    }
}

extension Application {
    private struct CodeBudgetsKey: StorageKey { typealias Value = CodeBudgets }

    /// Set by `MatesFeature.configure`.
    var codeBudgets: CodeBudgets {
        get { configured(CodeBudgetsKey.self) }
        set { storage[CodeBudgetsKey.self] = newValue }
    }
}
