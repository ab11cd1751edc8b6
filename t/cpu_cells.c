/* cpu_cells: the CPU backend's cell grid keeps its invariants under moves (every particle in the
 * slot its cell lists it at, the counts adding up to n), grows its slots when moves fill one cell
 * beyond them, gathers exactly the members of the 27 cells around a cell, and a build puts every
 * cell's members back in ascending index (the order a restart builds). */
#include "testutil.h"

#include <stdlib.h>

#include "cpu_cells.h"
#include "mc_err.h"

enum { N = 600 };
static const double BOX = 10.0, MIN_LEN = 2.0; /* 5 cells per edge */

static int ncells(const cpu_cells *g) { return g->ncell * g->ncell * g->ncell; }

static void check_invariants(const cpu_cells *g, int n)
{
    int total = 0;
    for (int c = 0; c < ncells(g); c++) {
        int count;
        const int *member = cpu_cells_members(g, c, &count);
        assert_true(count >= 0 && count <= g->cap);
        for (int s = 0; s < count; s++) {
            assert_int_equal(g->cell_of[member[s]], c);
            assert_int_equal(g->slot_of[member[s]], s);
        }
        total += count;
    }
    assert_int_equal(total, n);
}

/* Neighbouring slots of one cell whose members are out of ascending order, over every cell. */
static int descents(const cpu_cells *g)
{
    int out_of_order = 0;
    for (int c = 0; c < ncells(g); c++) {
        int count;
        const int *member = cpu_cells_members(g, c, &count);
        for (int s = 1; s < count; s++) out_of_order += member[s - 1] > member[s];
    }
    return out_of_order;
}

/* N particles at random in the box (drawn from seed), and g built over them. */
static void random_grid(cpu_cells *g, double *x, double *y, double *z, unsigned seed)
{
    mc_err err = {0};
    srand(seed);
    for (int i = 0; i < N; i++)
        x[i] = BOX * rand() / (RAND_MAX + 1.0), y[i] = BOX * rand() / (RAND_MAX + 1.0),
        z[i] = BOX * rand() / (RAND_MAX + 1.0);
    assert_int_equal(cpu_cells_init(g, N, BOX, MIN_LEN, &err), MC_OK);
    assert_int_equal(g->ncell, 5);
    assert_int_equal(cpu_cells_build(g, N, x, y, z, &err), MC_OK);
}

static void build_sorts_each_cell(void **state)
{
    (void)state;
    static double x[N], y[N], z[N];
    cpu_cells g;
    mc_err err = {0};
    random_grid(&g, x, y, z, 11);
    check_invariants(&g, N);
    for (int i = 0; i < N; i++) assert_int_equal(g.cell_of[i], cpu_cells_index(&g, x[i], y[i], z[i]));
    srand(12);
    for (int m = 0; m < 5000; m++) assert_int_equal(cpu_cells_move(&g, rand() % N, rand() % ncells(&g), &err), MC_OK);
    check_invariants(&g, N);
    /* the lists as moves left them are not ascending; built again, they are (members are distinct) */
    assert_true(descents(&g) > 0);
    assert_int_equal(cpu_cells_build(&g, N, x, y, z, &err), MC_OK);
    check_invariants(&g, N);
    assert_int_equal(descents(&g), 0);
    cpu_cells_fini(&g);
}

/* Every particle moved into one cell: the slots grow (doubling) past the build's size. */
static void slots_grow_when_a_cell_fills(void **state)
{
    (void)state;
    static double x[N], y[N], z[N];
    cpu_cells g;
    mc_err err = {0};
    random_grid(&g, x, y, z, 21);
    const int cap0 = g.cap;
    assert_true(cap0 < N);
    for (int i = 0; i < N; i++) assert_int_equal(cpu_cells_move(&g, i, 62, &err), MC_OK);
    assert_true(g.cap >= N && g.cap > cap0);
    check_invariants(&g, N);
    int count;
    cpu_cells_members(&g, 62, &count);
    assert_int_equal(count, N);
    cpu_cells_fini(&g);
}

/* A gather holds exactly the members of the 27 cells around a cell, less the skipped one, each
 * once: tagged by index in place of coordinates. */
static void gather_is_the_27_cells(void **state)
{
    (void)state;
    static double x[N], y[N], z[N], tag[N];
    for (int i = 0; i < N; i++) tag[i] = i;
    cpu_cells g;
    mc_err err = {0};
    random_grid(&g, x, y, z, 31);
    srand(32);
    for (int m = 0; m < 2000; m++) assert_int_equal(cpu_cells_move(&g, rand() % N, rand() % ncells(&g), &err), MC_OK);
    const int first[2] = {0, N};
    for (int c = 0; c < ncells(&g); c += 7) {
        int count, around[27], end[1], want[N] = {0}, got[N] = {0}, wanted = 0;
        const int *member = cpu_cells_members(&g, c, &count);
        const int skip = c % 3 || !count ? -1 : member[0]; /* a member of c, or none */
        cpu_cells_neighbours(&g, c, around);
        for (int k = 0; k < 27; k++)
            for (int i = 0; i < N; i++) want[i] |= g.cell_of[i] == around[k] && i != skip;
        for (int i = 0; i < N; i++) wanted += want[i];
        cpu_cells_gather(&g, c, skip, tag, tag, tag, first, 1, end);
        assert_int_equal(end[0], wanted);
        for (int a = 0; a < end[0]; a++) got[(int)g.gx[a]]++;
        for (int i = 0; i < N; i++) assert_int_equal(got[i], want[i]);
    }
    cpu_cells_fini(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(build_sorts_each_cell),
        cmocka_unit_test(slots_grow_when_a_cell_fills),
        cmocka_unit_test(gather_is_the_27_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
