@testable import FMServer
import HTTPTypes
import Testing

/// The admission gate's accounting, without a server: requests weigh the sequences they decode at once, waiters
/// are admitted in arrival order, and a full queue is turned away.
@Suite("Admission gate")
struct AdmissionGateTests {
    /// Waits until `gate` shows `waiting` requests in its queue, so the test knows a task has reached it; records
    /// an issue and returns when that takes more than 30 s.
    private func waitForQueue(_ gate: AdmissionGate, waiting: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        let deadline = ContinuousClock.now + .seconds(30)
        while gate.depth.waiting < waiting {
            guard ContinuousClock.now < deadline else {
                Issue.record("the queue never held \(waiting) waiters", sourceLocation: sourceLocation)
                return
            }
            await Task.yield()
        }
    }

    @Test func aRequestWeighsItsSequencesCappedAtTheGatesSize() {
        let gate = AdmissionGate(active: 4, queued: 2)
        #expect(gate.weight(of: 0) == 1)
        #expect(gate.weight(of: 3) == 3)
        #expect(gate.weight(of: 9) == 4, "a request heavier than the gate still runs, alone")
    }

    @Test func aHeavyRequestHoldsAsManySequencesAsItDecodes() async throws {
        let gate = AdmissionGate(active: 4, queued: 0)
        let heavy = try await gate.admit(sequences: 3)
        let light = try await gate.admit()
        #expect(gate.depth.running == 2)
        // Four sequences are held, and nothing may wait: the next request is turned away.
        await #expect(throws: APIError.self) { _ = try await gate.admit() }
        light.release()
        await #expect(throws: APIError.self) { _ = try await gate.admit(sequences: 2) }
        let another = try await gate.admit()
        heavy.release()
        another.release()
        #expect(gate.depth.running == 0)
    }

    @Test func waitersAreAdmittedInOrderAndALightOneDoesNotPassAHeavyOne() async throws {
        let gate = AdmissionGate(active: 4, queued: 4)
        let first = try await gate.admit(sequences: 3)
        let order = Order()
        let heavy = Task { let ticket = try await gate.admit(sequences: 4); await order.append("heavy"); return ticket }
        await waitForQueue(gate, waiting: 1)
        let light = Task { let ticket = try await gate.admit(); await order.append("light"); return ticket }
        await waitForQueue(gate, waiting: 2)
        // One sequence is free, enough for the light request, but the heavy one came first.
        #expect(gate.depth == (1, 2))
        first.release()
        let heavyTicket = try await heavy.value
        #expect(gate.depth == (1, 1))
        heavyTicket.release()
        try await light.value.release()
        #expect(await order.names == ["heavy", "light"])
        #expect(gate.depth == (0, 0))
    }

    @Test func aCancelledWaiterAtTheHeadLetsTheOnesBehindItIn() async throws {
        let gate = AdmissionGate(active: 2, queued: 4)
        let running = try await gate.admit()
        let heavy = Task { try await gate.admit(sequences: 2) }
        await waitForQueue(gate, waiting: 1)
        let light = Task { try await gate.admit() }
        await waitForQueue(gate, waiting: 2)
        heavy.cancel()
        await #expect(throws: CancellationError.self) { _ = try await heavy.value }
        let lightTicket = try await light.value
        #expect(gate.depth == (2, 0))
        lightTicket.release()
        running.release()
        #expect(gate.depth == (0, 0))
    }

    /// A request's time counts from its arrival: a waiter whose deadline passes leaves the queue with the 504, and
    /// lets in the ones behind it it held back; one whose deadline has passed on arrival never queues.
    @Test func aWaiterWhoseDeadlinePassesLeavesTheQueueWithA504() async throws {
        let gate = AdmissionGate(active: 2, queued: 4)
        let running = try await gate.admit()
        // Long enough for the light waiter to queue behind it first, on a busy machine too.
        let heavy = Task { try await gate.admit(sequences: 2, deadline: RequestDeadline(limit: .seconds(1))) }
        await waitForQueue(gate, waiting: 1)
        let light = Task { try await gate.admit() }
        await waitForQueue(gate, waiting: 2)
        do {
            _ = try await heavy.value
            Issue.record("the waiter past its deadline was admitted")
        } catch let error as APIError {
            #expect(error.status == .gatewayTimeout && error.code == "timeout", "\(error)")
        }
        let lightTicket = try await light.value
        #expect(gate.depth == (2, 0))
        await #expect(throws: APIError.self) {
            _ = try await gate.admit(deadline: RequestDeadline(limit: .seconds(1), from: .now - .seconds(2)))
        }
        #expect(gate.depth == (2, 0))
        lightTicket.release()
        running.release()
        // A deadline far off changes nothing for a request let in at once.
        try await gate.admit(sequences: 2, deadline: RequestDeadline(limit: .seconds(60))).release()
        #expect(gate.depth == (0, 0))
    }

    @Test func releasingATicketTwiceGivesItsSequencesBackOnce() async throws {
        let gate = AdmissionGate(active: 2, queued: 0)
        let ticket = try await gate.admit(sequences: 2)
        ticket.release()
        ticket.release()
        let a = try await gate.admit()
        let b = try await gate.admit()
        await #expect(throws: APIError.self) { _ = try await gate.admit() }
        a.release()
        b.release()
    }
}

private actor Order {
    var names: [String] = []
    func append(_ name: String) { names.append(name) }
}
