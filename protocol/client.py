"""An asyncio protocol client: the handshake, request ids, sealed commitments and fair decks.

Used by the bot SDK, the Textual client, the SSH gateway and the tests.  It keeps
the cards and nonce of each sealed commitment and opens it by itself as soon as
the server asks (the ``open_requested`` event, or a ``game_state`` whose
commitments say ``awaiting_open``), so a caller just calls ``commit(game, cards)``.
It also contributes to each game's deal by itself (``deal``: a random value, committed,
then opened), keeps every card the game showed it, and checks the decks when the server
reveals the deal (``deal_revealed``): the verdict is in ``verdicts`` when that message
is returned (``protocol.fairness``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import secrets
import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Self, TypeVar

from . import fairness
from . import messages as m
from .account_keys import Proof, proof_message
from .commitment import seal, seal_program
from .errors import ErrorCode
from .framing import MAX_FRAME_BYTES, decode_payload, encode_frame, read_payload
from .messages import PROTOCOL_VERSION, Direction, Message, parse
from .transport import open_stream

M = TypeVar("M", bound=Message)


#: A seal's ``connection`` when an earlier run of the client sent it (``Seal.from_dict``).
EARLIER_RUN = -1


@dataclass(frozen=True)
class Seal:
    """A commitment sent and not yet opened: what opens it."""

    round: int
    cards: tuple[Any, ...]  # Aton's four card values, or Atlas & Zeus's programming: ((slot, card), ...)
    nonce: bytes
    connection: int  # the (re)connection it was sent on
    opened_on: int | None = None  # the (re)connection its opening was sent on
    program: bool = False  # an Atlas & Zeus programming (opened with ``move``), not Aton's cards

    def opening(self, game: int) -> m.Open:
        if self.program:
            move = {"kind": "program", "cards": [list(pair) for pair in self.cards]}
            return m.Open(game=game, cards=None, nonce=self.nonce, move=move)
        return m.Open(game=game, cards=self.cards, nonce=self.nonce)

    def to_dict(self) -> dict[str, Any]:
        """The seal as JSON, to keep between runs (``protocol.saved_games``): its round, cards,
        nonce and kind; not the connections, which are this run's."""
        return {"round": self.round, "cards": [list(card) if self.program else card for card in self.cards],
                "nonce": self.nonce.hex(), "program": self.program}

    @classmethod
    def from_dict(cls, data: Any) -> Seal:
        """A seal kept by an earlier run; ValueError if ``data`` is not one (a damaged file): Aton's
        four cards of 1–4, or a programming's (slot, card) pairs, a round, a nonce of 16–64 bytes."""
        try:
            program, round_, nonce, cards = data["program"], data["round"], bytes.fromhex(data["nonce"]), data["cards"]
            if program is True:
                cards = tuple((slot, card) for slot, card in cards)
                well_formed = bool(cards) and all(type(slot) is int and isinstance(card, str) for slot, card in cards)
            else:
                cards = tuple(cards)
                well_formed = program is False and len(cards) == 4 and all(type(c) is int and 1 <= c <= 4
                                                                           for c in cards)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a kept seal: {exc}") from None
        if not well_formed or type(round_) is not int or round_ < 0 or not 16 <= len(nonce) <= 64:
            raise ValueError("not a kept seal")
        return cls(round=round_, cards=cards, nonce=nonce, connection=EARLIER_RUN, program=program)


class ServerError(Exception):
    """The server answered a request with ``error``."""

    def __init__(self, error: m.Error) -> None:
        super().__init__(f"{error.code}: {error.message}")
        self.error = error
        self.code = error.code


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.tls: ssl.SSLContext | None = None  # the TLS context of every (re)connection (None: plain TCP)
        #: The source of our contributions to deals (``connect`` sets a test's, seeded).
        self.entropy: Callable[[int], bytes] = secrets.token_bytes
        self.deals: dict[int, fairness.DealWitness] = {}  # game -> what we saw of its deal, until revealed
        self.verdicts: dict[int, fairness.Verdict] = {}  # game -> the check of its decks
        self._deal_openings: dict[int, int] = {}  # request id of a deal_open -> its game
        self.welcome: m.Welcome | None = None
        self._hello: m.Hello | None = None
        #: What proves our account on every hello (None: we play as a guest).
        self.proof: Proof | None = None
        #: Why the server did not take our proof on the last hello (we play as a guest), if it did not.
        self.proof_error: m.Error | None = None
        self.seats: dict[int, str | None] = {}  # game -> my seat (None: watching)
        self.seals: dict[int, Seal] = {}  # game -> the commitment waiting to be opened
        #: Told whenever what this client must remember of its games may have changed — a seal or
        #: a contribution to a deal made (before it is sent), a game's frame read — by a client that
        #: keeps them between runs (``protocol.saved_games``).
        self.keep: Callable[[Client], None] = lambda client: None
        self._rounds: dict[int, int] = {}  # game -> the round of the latest view
        self._connection = 0  # how many times this session has (re)connected
        self._next_id = 1

    def forget_games_before(self, game: int) -> None:
        """Forget the games numbered below ``game`` (a server numbers its games in order): their
        seats, rounds and verdicts.  A deal still to be revealed or a seal still to be opened stays,
        with its seat.  For a client that runs for ever, such as a bot playing until stopped."""
        pending = self.deals.keys() | self.seals.keys()
        for games in (self.seats, self._rounds, self.verdicts):
            for old in [old for old in games if old < game and old not in pending]:
                del games[old]

    @classmethod
    async def connect(cls, host: str, port: int, *, name: str, kind: str = "human",
                      resume: str | None = None, lobby: bool | None = None,
                      version: str = PROTOCOL_VERSION, timeout: float = 10.0,
                      local_addr: tuple[str, int] | None = None,
                      entropy: Callable[[int], bytes] = secrets.token_bytes, proof: Proof | None = None,
                      tls: ssl.SSLContext | None = None) -> Self:
        """Open a connection (from ``local_addr``, if given; through TLS with the context ``tls``, if
        given: ``protocol.transport``) and say hello; ServerError if the server refuses, TLSFailed if
        TLS does.  ``entropy(n)`` gives the random bytes of our contributions to deals; ``proof``
        proves our account on every hello (None: we play as a guest)."""
        reader, writer = await open_stream(host, port, tls, timeout=timeout, local_addr=local_addr)
        client = cls(reader, writer)
        client.tls = tls
        client.entropy = entropy
        client.proof = proof
        claim = {} if proof is None or m.minor_of(version) < m.ACCOUNTS else proof.claim()
        client._hello = m.Hello(version=version, name=name, kind=kind, resume=resume, lobby=lobby, **claim)
        await client._greet(timeout)
        return client

    async def _greet(self, timeout: float) -> None:
        hello = self._hello
        assert hello is not None, "connect() makes the hello before greeting"
        try:
            await self.send(hello)
            reply = await self.recv(timeout)
            self.proof_error = None
            if isinstance(reply, m.Challenge) and self.proof is not None:
                reply = await self._prove(reply, timeout)
            if isinstance(reply, m.Error):
                raise ServerError(reply)
            if not isinstance(reply, m.Welcome):
                raise ConnectionError(f"expected welcome, got {reply.TYPE}")
        except asyncio.IncompleteReadError:
            await self.close()
            hint = "" if self.tls else " (a TLS port? its address is then tls://HOST:PORT)"
            raise ConnectionError("the server closed the connection before its welcome" + hint) from None
        except BaseException:
            await self.close()
            raise
        self.welcome = reply
        self._hello = dataclasses.replace(hello, resume=reply.resume, name=reply.name)

    async def _prove(self, challenge: m.Challenge, timeout: float) -> m.Message:
        """Answer the challenge; the server's reply: ``welcome``, or the error that refused us.  A
        proof the server did not take is kept in ``proof_error`` (we play as a guest), or raised if
        the server closes instead (it admits no guests)."""
        assert self.proof is not None
        message = proof_message(challenge.nonce, challenge.server, self.proof.fingerprint)
        await self.send(m.Prove(signature=self.proof.answer(message)))
        reply = await self.recv(timeout)
        if isinstance(reply, m.Error) and reply.code == ErrorCode.PROOF_FAILED:
            self.proof_error = reply
            following = await self.recv(timeout)
            return following if isinstance(following, m.Welcome) else reply
        return reply

    async def reconnect(self, host: str, port: int, timeout: float = 10.0) -> None:
        """Open a new connection and resume this session (seats and sealed commitments kept).

        The server answers with ``welcome`` and then a ``game_state`` for every game
        in which this session holds a seat.
        """
        await self.close()
        self.reader, self.writer = await open_stream(host, port, self.tls, timeout=timeout)
        self._connection += 1
        await self._greet(timeout)

    @property
    def name(self) -> str:
        return self.welcome.name if self.welcome else ""

    @property
    def resume_token(self) -> str | None:
        return self.welcome.resume if self.welcome else None

    async def send(self, msg: Message) -> int | None:
        """Send a message; a request without an id gets the next one, which is returned."""
        request_id: int | None = getattr(msg, "id", None)  # requests have an id field, others none
        if request_id is None and any(f.name == "id" for f in dataclasses.fields(msg)):
            request_id = self._next_id
            self._next_id += 1
            numbered: dict[str, Any] = {"id": request_id}
            msg = dataclasses.replace(msg, **numbered)
        self.writer.write(encode_frame(msg.to_wire()))
        await self.writer.drain()
        return request_id

    async def recv(self, timeout: float | None = None) -> Message:
        """The next message from the server (opening sealed commitments when asked, contributing
        to deals and checking them)."""
        payload = await asyncio.wait_for(read_payload(self.reader, MAX_FRAME_BYTES), timeout)
        msg = parse(decode_payload(payload), Direction.SERVER)
        # (only these change what a client keeps of its games: a lobby's frames cost it nothing)
        of_games = isinstance(msg, (m.GameState, m.Update, m.Deal, m.DealRevealed)) or \
            (isinstance(msg, m.Ack) and msg.reply_to in self._deal_openings)
        if isinstance(msg, m.GameState):
            self.seats[msg.game] = msg.seat
            self._forget_lost_seal(msg.game, m.commitments_of(msg))
        if isinstance(msg, (m.GameState, m.Update)):
            self._rounds[msg.game] = msg.view.get("round", 0)
            events = msg.log if isinstance(msg, m.GameState) else msg.events
            witness = self.deals.get(msg.game)
            if witness is not None:
                if msg.version == 0:
                    witness.saw_opening(msg.view)
                for event in events:
                    witness.saw(event)
            if any(event.get("type") == "game_over" for event in events):
                self.seals.pop(msg.game, None)  # a seal the game ended before opening (a resignation)
            await self._open_if_asked(msg.game, msg.view.get("round"), m.commitments_of(msg))
        elif isinstance(msg, m.Deal):
            await self._contribute(msg)
        elif isinstance(msg, m.Ack) and msg.reply_to in self._deal_openings:
            opened = self.deals.get(self._deal_openings.pop(msg.reply_to))
            if opened is not None:
                opened.opened = True
        elif isinstance(msg, m.DealRevealed):
            witness = self.deals.pop(msg.game, None)
            if witness is not None or msg.game not in self.verdicts:  # revealed again: the first verdict stands
                self.verdicts[msg.game] = fairness.verify(witness, msg.game, msg.secret, msg.opened, msg.fills or {},
                                                          msg.record)
        if of_games:
            self.keep(self)
        return msg

    async def _contribute(self, deal: m.Deal) -> None:
        """Our part of a game's deal: a fresh random value, committed when asked, opened once the
        server shows every other commitment (the same value again if asked again)."""
        witness = self.deals.setdefault(deal.game, fairness.DealWitness(deal.game, deal.seat, deal.server))
        if witness.seat != deal.seat:
            return  # a deal frame that contradicts the first: the check at the end says so
        if deal.stage == "commit":
            if witness.value is None:
                witness.value = self.entropy(fairness.VALUE_BYTES)
                witness.commitments[deal.seat] = fairness.contribution_commitment(deal.game, deal.seat, witness.value)
                self.keep(self)
            await self.send(m.DealCommit(game=deal.game, digest=witness.commitments[deal.seat]))
            return
        if witness.value is None:
            return  # asked to open what we never committed (we came in late): our part is the server's
        for seat, digest in (deal.commitments or {}).items():
            witness.commitments.setdefault(seat, digest)  # ours stays the one we made
        request = await self.send(m.DealOpen(game=deal.game, value=witness.value))
        if request is not None:
            self._deal_openings[request] = deal.game

    async def expect(self, kind: type[M], timeout: float | None = 10.0) -> M:
        """Receive until a message of ``kind``; an ``error`` on the way raises ServerError."""
        while True:
            msg = await self.recv(timeout)
            if isinstance(msg, kind):
                return msg
            if isinstance(msg, m.Error) and kind is not m.Error:
                raise ServerError(msg)

    def has_sealed(self, game: int) -> bool:
        """Whether we hold a commitment for this round of ``game`` (sent, perhaps not yet opened).

        A view that still shows our commitment as "none" may have been sent before
        the server received it: a client commits only when this is False.
        """
        seal = self.seals.get(game)
        return seal is not None and seal.round == self._rounds.get(game)

    async def commit(self, game: int, cards: tuple[int, ...] | list[int]) -> int | None:
        """Seal ``cards`` for cartouches 1–4; the opening is sent when the server asks for it."""
        digest, nonce = seal(cards)
        self.seals[game] = Seal(self._rounds.get(game, 0), tuple(cards), nonce, self._connection)
        self.keep(self)
        return await self.send(m.Commit(game=game, digest=digest))

    async def commit_program(self, game: int, cards: Sequence[Sequence[int | str]]) -> int | None:
        """Seal an Atlas & Zeus programming, ``[[slot, card], ...]``, claiming its slots; the
        opening is sent when the server asks for it."""
        program = tuple(sorted((int(slot), str(card)) for slot, card in cards))
        digest, nonce = seal_program(program)
        self.seals[game] = Seal(self._rounds.get(game, 0), program, nonce, self._connection, program=True)
        self.keep(self)
        return await self.send(m.Commit(game=game, digest=digest, slots=tuple(slot for slot, _ in program)))

    def _forget_lost_seal(self, game: int, commitments: dict[str, str]) -> None:
        """A full state after a reconnection says whether the server ever got our commitment."""
        held = self.seals.get(game)
        seat = self.seats.get(game)
        if held is not None and held.connection < self._connection and seat is not None \
                and commitments.get(seat) == "none":
            del self.seals[game]  # it was lost with the old connection: commit again

    async def _open_if_asked(self, game: int, round_: int | None, commitments: dict[str, str]) -> None:
        """Open when asked, once per connection: an opening lost with a connection (or
        with a server that crashed before both were open) is sent again after reconnecting."""
        seat = self.seats.get(game)
        held = self.seals.get(game)
        if seat is None or held is None:
            return
        state = commitments.get(seat)
        if held.round != round_ or state == "opened":
            del self.seals[game]  # done with, or a stale commitment of an earlier round
        elif state == "awaiting_open" and held.opened_on != self._connection:
            self.seals[game] = dataclasses.replace(held, opened_on=self._connection)
            await self.send(held.opening(game))

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()
