@testable import FMTagging
import Foundation
import Testing

/// How many requests a job sends one server at once: unlimited until the server turns one away, then half of
/// those in flight, once per crowd, growing back by one after as many answers in a row as the limit allows.
@Suite("ServerThrottle", .timeLimit(.minutes(1)))
struct ServerThrottleTests {
    @Test func aBusyAnswerHalvesWhatWasInFlightOncePerCrowd() async throws {
        let throttle = ServerThrottle()
        var permits: [ServerThrottle.Permit] = []
        for _ in 0..<8 { permits.append(try await throttle.acquire()) }
        #expect(throttle.limit == nil)
        // The whole crowd is turned away: the first answer halves the eight in flight, the rest were sent before it.
        #expect(throttle.release(permits[0], .busy))
        #expect(throttle.limit == 4)
        for permit in permits.dropFirst() { #expect(throttle.release(permit, .busy)) }
        #expect(throttle.limit == 4)
        // A request sent under the lowered limit and turned away with three others in flight halves it again.
        permits = []
        for _ in 0..<4 { permits.append(try await throttle.acquire()) }
        #expect(throttle.release(permits[3], .busy))
        #expect(throttle.limit == 2)
        for permit in permits.prefix(3) { throttle.release(permit, .answered) }
    }

    /// A request that got no answer in time is judged by what the server answered — nothing ever, others
    /// meanwhile, or earlier only — and by whether other requests of the job were there with it. One that waited
    /// beside others halves the limit as a turn-away does, without counting as an answer itself.
    @Test func answersSinceARequestWasSentTellAQueueFromAHang() async throws {
        let throttle = ServerThrottle()
        let first = try await throttle.acquire()
        #expect(throttle.answers(since: first) == (others: false, ever: false, crowded: false))
        let second = try await throttle.acquire()
        #expect(throttle.answers(since: first) == (others: false, ever: false, crowded: true))
        throttle.release(second, .answered)
        #expect(throttle.answers(since: first) == (others: true, ever: true, crowded: true))
        let third = try await throttle.acquire()
        #expect(throttle.answers(since: third) == (others: false, ever: true, crowded: true))
        #expect(throttle.release(first, .late), "it waited beside the third")
        #expect(throttle.limit == 1)
        #expect(throttle.answers(since: third) == (others: false, ever: true, crowded: true), "a late request is no answer")
        #expect(throttle.release(third, .late), "the first was in flight beside it")
        let alone = try await throttle.acquire()
        #expect(throttle.answers(since: alone) == (others: false, ever: true, crowded: false))
        #expect(!throttle.release(alone, .late), "no other request of the job was in flight")
    }

    @Test func aRequestTurnedAwayAloneWasNotCrowdedByTheJob() async throws {
        let throttle = ServerThrottle()
        let alone = try await throttle.acquire()
        #expect(!throttle.release(alone, .busy))
        #expect(throttle.limit == 1)
        // One that had company at any time while in flight was crowded, even if the company left first.
        let late = ServerThrottle()
        let a = try await late.acquire()
        let b = try await late.acquire()
        late.release(b, .answered)
        #expect(late.release(a, .busy))
        // An answer is never a crowd, whatever was in flight.
        let answering = ServerThrottle()
        let c = try await answering.acquire()
        let d = try await answering.acquire()
        #expect(!answering.release(c, .answered))
        #expect(!answering.release(d, .answered))
        #expect(answering.limit == nil)
    }

    @Test func theLimitGrowsByOneAfterAsManyAnswersInARow() async throws {
        let throttle = ServerThrottle()
        let first = try await throttle.acquire()
        let second = try await throttle.acquire()
        throttle.release(second, .answered)
        throttle.release(first, .busy)
        #expect(throttle.limit == 1)
        for expected in [2, 2, 3, 3, 3, 4] {
            let permit = try await throttle.acquire()
            throttle.release(permit, .answered)
            #expect(throttle.limit == expected)
        }
        // A busy answer starts the count again.
        let busy = try await throttle.acquire()
        throttle.release(busy, .busy)
        #expect(throttle.limit == 1)
    }

    @Test func waitersAreLetInInTheOrderTheyAskedAsPlacesFree() async throws {
        let (throttle, first) = try await Self.fullAtOne()
        let order = OrderRecorder()
        var waiting: [Task<Void, any Error>] = []
        // Each waiter queues up before the next one asks.
        for index in 0..<3 {
            waiting.append(Task {
                let permit = try await throttle.acquire()
                await order.append(index)
                // Busy answers keep the limit at 1, so the next waiter is let in only now.
                throttle.release(permit, .busy)
            })
            while throttle.waiting < index + 1 { await Task.yield() }
        }
        #expect(await order.count == 0)
        throttle.release(first, .busy)
        for task in waiting { try await task.value }
        #expect(await order.values == [0, 1, 2])
        #expect(throttle.waiting == 0)
    }

    /// A request that may go to another server asks without waiting: it gets no place while the server is full,
    /// whether or not others wait, and one once a place is free.
    @Test func askingWithoutWaitingGetsAPlaceOnlyWhenOneIsFree() async throws {
        let (throttle, first) = try await Self.fullAtOne()
        #expect(throttle.tryAcquire() == nil)
        let waiter = Task { try await throttle.acquire() }
        while throttle.waiting < 1 { await Task.yield() }
        throttle.release(first, .busy)  // the place goes to the waiter
        #expect(throttle.tryAcquire() == nil)
        throttle.release(try await waiter.value, .answered)
        let free = try #require(throttle.tryAcquire())
        throttle.release(free, .answered)
    }

    /// A server that cannot be reached (or refuses the job) is sent one request at a time until it answers, and
    /// such a failure is never a crowd; answers let the limit grow back.
    @Test func anUnavailableServerIsSentOneRequestAtATime() async throws {
        let throttle = ServerThrottle()
        let first = try #require(throttle.tryAcquire())
        let second = try #require(throttle.tryAcquire())
        #expect(!throttle.release(first, .unavailable))
        #expect(throttle.limit == 1)
        #expect(throttle.tryAcquire() == nil)
        #expect(!throttle.release(second, .unavailable))
        let probe = try #require(throttle.tryAcquire())
        #expect(throttle.tryAcquire() == nil)
        throttle.release(probe, .answered)
        #expect(throttle.limit == 2)
    }

    @Test func aCancelledWaiterLeavesWithoutAPlaceAndWithoutStoppingTheOthers() async throws {
        let (throttle, first) = try await Self.fullAtOne()
        let cancelled = Task { try await throttle.acquire() }
        while throttle.waiting < 1 { await Task.yield() }
        let next = Task { try await throttle.acquire() }
        while throttle.waiting < 2 { await Task.yield() }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(throttle.waiting == 1)
        throttle.release(first, .answered)
        let permit = try await next.value
        throttle.release(permit, .answered)
        // A task cancelled before it asks gets no place either.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await throttle.acquire()
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(throttle.waiting == 0)
    }
}

extension ServerThrottleTests {
    /// A throttle whose limit is 1 (two requests in flight, one turned away as busy), and the place that fills it.
    static func fullAtOne() async throws -> (ServerThrottle, ServerThrottle.Permit) {
        let throttle = ServerThrottle()
        let first = try await throttle.acquire()
        let second = try await throttle.acquire()
        throttle.release(second, .busy)
        return (throttle, first)
    }
}

/// The order waiters got their places in.
private actor OrderRecorder {
    private(set) var values: [Int] = []
    var count: Int { values.count }
    func append(_ value: Int) { values.append(value) }
}
