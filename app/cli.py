"""``prefclub``: the command line of the club server.

Commands: ``serve`` (migrate, bootstrap, run uvicorn), ``migrate``, ``create-admin``, ``score``
(rescore a ``pulka/1`` record), ``backup``, ``restore`` and ``verify`` (docs/backup.md),
``rebuild-standings`` (docs/rating.md).
Each command reads the same settings as the server.
"""

from __future__ import annotations

import signal
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer

from app.rules import PRESET_NAMES

if TYPE_CHECKING:
    from app.services.bootstrap import FirstAdmin

# A command imports what it uses when it runs (``score`` needs no web app), the settings, the
# embedded database and asyncio included. This also keeps the process pools' workers light:
# ``spawn`` re-imports this module as each worker's ``__main__`` (the rules, which the solver's,
# the analyses' and the hints' workers import anyway, are the one heavy import left here).

cli = typer.Typer(
    help="prefclub: the Preferans club server.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _database_url() -> str:
    from app.config import get_settings
    from app.db.embedded import database_url

    settings = get_settings()
    return database_url(settings.database_url, settings.data_dir)


EXIT_STORED_MISMATCH = 3
"""``prefclub migrate``'s exit status when a finished pulka no longer re-reads the same."""


async def _stored_problems(url: str) -> list[str]:
    from app.db.engine import make_engine, make_sessionmaker
    from app.services.stored_check import finished_pulka_problems

    engine = make_engine(url)
    try:
        async with make_sessionmaker(engine)() as session:
            return await finished_pulka_problems(session)
    finally:
        await engine.dispose()


@cli.command()
def migrate() -> None:
    """Bring the database schema up to date (``alembic upgrade head``), then check that every
    finished pulka re-scores to its stored sheet and settlement (exit 3 naming those that do
    not, docs/formats.md)."""
    import asyncio

    from app.db.migrate import upgrade

    url = _database_url()
    upgrade(url)
    typer.echo("database schema is up to date")
    problems = asyncio.run(_stored_problems(url))
    for problem in problems:
        typer.echo(f"error: {problem}", err=True)
    if problems:
        raise typer.Exit(EXIT_STORED_MISMATCH)
    if asyncio.run(_standings(url, only_if_empty=True)):
        typer.echo("standings and ratings built from the archive")


async def _standings(url: str, *, only_if_empty: bool) -> bool:
    from app.db.engine import make_engine, make_sessionmaker, session_scope
    from app.services import rating, standings

    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as session:
            if only_if_empty:
                return await standings.backfill(session)
            await standings.rebuild(session)
            await rating.rebuild(session)
            return True
    finally:
        await engine.dispose()


@cli.command("rebuild-standings")
def rebuild_standings() -> None:
    """Rebuild the standings' nights and the rating from the archive (docs/rating.md); the
    result is what the server kept as each pulka closed, so this only repairs."""
    import asyncio

    asyncio.run(_standings(_database_url(), only_if_empty=False))
    typer.echo("standings and ratings rebuilt from the archive")


async def _bootstrap(url: str) -> FirstAdmin | None:
    """First admin on an empty club; the Monday calendar generated ahead (R-S1)."""
    from app.config import get_settings
    from app.db.engine import make_engine, make_sessionmaker, session_scope
    from app.services import standings
    from app.services.bootstrap import ensure_first_admin
    from app.services.schedule import generate_sessions

    engine = make_engine(url)
    try:
        async with session_scope(make_sessionmaker(engine)) as session:
            first = await ensure_first_admin(session)
            await generate_sessions(session, datetime.now(UTC), get_settings().zone)
            await standings.backfill(session)
            return first
    finally:
        await engine.dispose()


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(help="address to bind (env HOST)")] = None,
    port: Annotated[int | None, typer.Option(help="port to bind (env PORT)")] = None,
) -> None:
    """Migrate, create the first admin on an empty club, and serve the club.

    However it stops (SIGTERM, Ctrl+C, a failed start), the embedded PostgreSQL it started is
    stopped with it unless another process still uses it.
    """
    # uvicorn re-raises SIGTERM after its graceful shutdown; with Python's default handler that
    # kills the process before any cleanup, leaving the embedded PostgreSQL running.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        _serve(host, port)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    finally:
        from app.db.embedded import stop_embedded

        stop_embedded()


def _exit_on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM as a normal exit, so ``finally`` blocks and exit hooks run."""
    raise SystemExit(128 + signum)


def _serve(host: str | None, port: int | None) -> None:
    from app.realtime.gc_tuning import serving_thresholds

    serving_thresholds()
    import asyncio

    import uvicorn

    from app.commands.banner import BannerServer, banner
    from app.commands.http_protocol import ClubHttpProtocol
    from app.commands.uvicorn_options import UVICORN_OPTIONS
    from app.config import get_settings
    from app.db.migrate import upgrade
    from app.logging_setup import configure_logging
    from app.main import create_app

    settings = get_settings()
    if host is not None:
        settings.host = host
    if port is not None:
        settings.port = port
    configure_logging(settings.log_level, settings.log_format)
    url = _database_url()
    upgrade(url)
    first = asyncio.run(_bootstrap(url))
    base = f"http://{settings.host}:{settings.port}"

    text = banner(base, first.login, first.password) if first is not None else banner(base)
    app = create_app(settings)
    options = {
        **UVICORN_OPTIONS,
        "http": ClubHttpProtocol.configured(
            settings.header_timeout, settings.incomplete_per_address
        ),
    }
    config = uvicorn.Config(app, host=settings.host, port=settings.port, **options)
    BannerServer(config, text).run()


@cli.command("create-admin")
def create_admin(
    login: Annotated[str, typer.Argument(help="login name of the new admin")],
    display_name: Annotated[str | None, typer.Option(help="name shown at tables")] = None,
) -> None:
    """Create an admin account and print its one-time password."""
    import asyncio

    from app.db.migrate import upgrade
    from app.services.members import create_admin_account

    url = _database_url()
    upgrade(url)
    try:
        password = asyncio.run(create_admin_account(url, login, display_name or login))
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"admin '{login}' created; one-time password: {password}")


@cli.command()
def score(
    file: Annotated[str, typer.Argument(help="a pulka/1 JSON file, or - for standard input")],
) -> None:
    """Score a ``pulka/1`` record and print ``pulka-score/1`` (exit 2 on invalid input)."""
    from app.commands.score import run_score

    raise typer.Exit(run_score(file, sys.stdout, sys.stdin))


@cli.command()
def selfplay(
    tables: Annotated[int, typer.Option(help="number of tables")] = 1,
    players: Annotated[int, typer.Option(help="players per table: 3, 4 or 5")] = 3,
    deals: Annotated[int, typer.Option(help="deals to play at every table")] = 4,
    preset: Annotated[
        str, typer.Option(help=f"conventions preset: {', '.join(PRESET_NAMES)}")
    ] = "club",
    json_: Annotated[bool, typer.Option("--json", help="print a JSON summary last")] = False,
) -> None:
    """Bots play N deals at T tables of a real server; exports and rescores every pulka."""
    from app.commands.selfplay import run_selfplay

    raise typer.Exit(run_selfplay(tables, players, deals, preset, json_))


@cli.command()
def backup(
    file: Annotated[
        str | None,
        typer.Argument(help="where to write it (default: the backup folder, as a manual backup)"),
    ] = None,
) -> None:
    """Make a consistent online backup (pg_dump custom format) while tables are played."""
    from app.clock import server_clock
    from app.commands.backup import run_backup
    from app.config import get_settings

    settings = get_settings()
    raise typer.Exit(
        run_backup(
            _database_url(), settings, file, server_clock(settings).now(), sys.stdout, sys.stderr
        )
    )


@cli.command()
def restore(
    file: Annotated[str, typer.Argument(help="a backup made by prefclub backup")],
    force: Annotated[
        bool, typer.Option("--force", help="replace a database that holds data")
    ] = False,
) -> None:
    """Restore a backup into an empty data folder or database (exit 2 if not empty)."""
    from app.commands.backup import run_restore

    raise typer.Exit(run_restore(_database_url(), file, force, sys.stdout, sys.stderr))


@cli.command()
def verify() -> None:
    """Check the club's data and print its digest as the last line (exit 1 on problems)."""
    from app.commands.backup import run_verify

    raise typer.Exit(run_verify(_database_url(), sys.stdout))


def main() -> None:
    """Console-script entry point."""
    cli()


if __name__ == "__main__":
    main()
