"""SQLAlchemy 2 over psycopg 3: Core table create/insert/select, an ORM session with a mapped
class, begin_nested (savepoints), and reflection through inspect()."""

from decimal import Decimal

import sqlalchemy as sa
from sqlalchemy import orm

from harness import Checks, expect, url

checks = Checks("sqlalchemy")


def engine():
    return sa.create_engine(url("postgresql+psycopg"), poolclass=sa.pool.NullPool)


metadata = sa.MetaData()
core_items = sa.Table(
    "sqlalchemy_core",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("price", sa.Numeric(10, 2)),
    sa.Index("sqlalchemy_core_name", "name"),
)


class Base(orm.DeclarativeBase):
    pass


class Account(Base):
    __tablename__ = "sqlalchemy_account"
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True)
    owner: orm.Mapped[str] = orm.mapped_column(sa.String(40))
    balance: orm.Mapped[int]


def fresh(db, *tables):
    for table in tables:
        table.drop(db, checkfirst=True)
        table.create(db)


@checks.check
def connect():
    with engine().connect() as conn:
        expect(conn.execute(sa.text("SELECT 1")).scalar(), 1)


@checks.check
def core():
    db = engine()
    fresh(db, core_items)
    with db.begin() as conn:
        conn.execute(
            core_items.insert(),
            [{"id": 1, "name": "pen", "price": Decimal("1.50")}, {"id": 2, "name": "ink", "price": None}],
        )
    with db.connect() as conn:
        rows = conn.execute(
            sa.select(core_items.c.name, core_items.c.price).where(core_items.c.id >= 1).order_by(core_items.c.id)
        ).all()
    expect([tuple(row) for row in rows], [("pen", Decimal("1.50")), ("ink", None)])


@checks.check
def orm_session():
    db = engine()
    fresh(db, Account.__table__)
    with orm.Session(db) as session:
        session.add_all([Account(id=1, owner="ann", balance=10), Account(id=2, owner="bob", balance=5)])
        session.commit()
    with orm.Session(db) as session:
        bob = session.scalars(sa.select(Account).where(Account.owner == "bob")).one()
        bob.balance += 7
        session.commit()
        expect(session.get(Account, 2).balance, 12)
        expect(session.scalar(sa.select(sa.func.sum(Account.balance))), 22)


@checks.check
def begin_nested():
    db = engine()
    fresh(db, Account.__table__)
    with orm.Session(db) as session:
        session.add(Account(id=1, owner="ann", balance=10))
        nested = session.begin_nested()
        session.add(Account(id=2, owner="bob", balance=5))
        session.flush()
        nested.rollback()
        session.commit()
        expect(session.scalars(sa.select(Account.owner)).all(), ["ann"])


@checks.check
def reflection():
    db = engine()
    fresh(db, core_items)
    inspector = sa.inspect(db)
    expect("sqlalchemy_core" in inspector.get_table_names(), True, "table listed")
    columns = [
        (c["name"], str(c["type"]), c["nullable"]) for c in inspector.get_columns("sqlalchemy_core")
    ]
    expect(
        columns,
        [("id", "INTEGER", False), ("name", "VARCHAR(40)", False), ("price", "NUMERIC(10, 2)", True)],
        "columns",
    )
    expect(inspector.get_pk_constraint("sqlalchemy_core")["constrained_columns"], ["id"], "primary key")
    expect(
        [(i["name"], i["column_names"], i["unique"]) for i in inspector.get_indexes("sqlalchemy_core")],
        [("sqlalchemy_core_name", ["name"], False)],
        "indexes",
    )


if __name__ == "__main__":
    checks.run()
