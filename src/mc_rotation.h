/* mc_rotation: orientations of rigid bodies as unit quaternions, for the rotation moves of rigid
 * molecules (issue 5), written once for the CPU and the CUDA kernels (MC_HD). A quaternion stays
 * a rotation to rounding because every composition is renormalised; the rotation matrix is
 * derived from it when needed, so it cannot drift from orthonormal. Convention: q = (w, x, y, z)
 * = (cos(a/2), sin(a/2) n) rotates by angle a about the unit axis n; q1 * q2 applies q2 first. */
#ifndef MC_ROTATION_H
#define MC_ROTATION_H

#include <math.h>

#include "mc_hd.h"

typedef struct mc_quat {
    double w, x, y, z;
} mc_quat;

MC_HD mc_quat mc_quat_identity(void)
{
    mc_quat q = {1.0, 0.0, 0.0, 0.0};
    return q;
}

/* a * b: the rotation b, then a. */
MC_HD mc_quat mc_quat_multiply(mc_quat a, mc_quat b)
{
    mc_quat q = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                 a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                 a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                 a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
    return q;
}

MC_HD mc_quat mc_quat_normalize(mc_quat q)
{
    double s = 1.0 / sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    mc_quat r = {q.w * s, q.x * s, q.y * s, q.z * s};
    return r;
}

/* The inverse of a unit quaternion: its conjugate. */
MC_HD mc_quat mc_quat_inverse(mc_quat q)
{
    mc_quat r = {q.w, -q.x, -q.y, -q.z};
    return r;
}

/* Row-major 3x3 rotation matrix of a unit quaternion. */
MC_HD void mc_quat_matrix(mc_quat q, double m[9])
{
    double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    m[0] = 1.0 - 2.0 * (yy + zz), m[1] = 2.0 * (xy - wz), m[2] = 2.0 * (xz + wy);
    m[3] = 2.0 * (xy + wz), m[4] = 1.0 - 2.0 * (xx + zz), m[5] = 2.0 * (yz - wx);
    m[6] = 2.0 * (xz - wy), m[7] = 2.0 * (yz + wx), m[8] = 1.0 - 2.0 * (xx + yy);
}

/* v rotated by the unit quaternion q (body frame to lab frame). */
MC_HD void mc_quat_rotate(mc_quat q, const double v[3], double out[3])
{
    double m[9];
    mc_quat_matrix(q, m);
    for (int i = 0; i < 3; i++) out[i] = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
}

/* A trial rotation from three uniforms in (0, 1): about an axis uniform on the sphere (cos theta
 * = 2 u1 - 1, phi = 2 pi u2) by an angle uniform in (-max_angle, max_angle). Its inverse is as
 * likely as itself (the axis -n with the same angle, or n with the opposite one), so a
 * Metropolis test on the energy alone keeps detailed balance, and with max_angle >= pi every
 * orientation can be reached in one move. */
MC_HD mc_quat mc_quat_trial(double u1, double u2, double u3, double max_angle)
{
    double cos_t = 2.0 * u1 - 1.0, sin_t = sqrt(fmax(0.0, 1.0 - cos_t * cos_t));
    double phi = 2.0 * M_PI * u2, half = 0.5 * max_angle * (2.0 * u3 - 1.0), s = sin(half);
    mc_quat q = {cos(half), s * sin_t * cos(phi), s * sin_t * sin(phi), s * cos_t};
    return q;
}

/* An orientation uniform on SO(3) from three uniforms in (0, 1) (Shoemake, Graphics Gems III):
 * the starting orientations and the Widom test molecules. */
MC_HD mc_quat mc_quat_uniform(double u1, double u2, double u3)
{
    double a = 2.0 * M_PI * u2, b = 2.0 * M_PI * u3;
    mc_quat q = {sqrt(1.0 - u1) * sin(a), sqrt(1.0 - u1) * cos(a), sqrt(u1) * sin(b), sqrt(u1) * cos(b)};
    return mc_quat_normalize(q);
}

#endif
