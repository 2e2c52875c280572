#version 330 core
// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Round point sprite: the class colour inside, a darker rim, an anti-aliased edge; a selected
// point gets a light rim that stands out on the dark map background.

in vec3 v_color;
in float v_size;
flat in int v_selected;
out vec4 o_color;

void main()
{
    float r = length(gl_PointCoord * 2.0 - 1.0); // 0 at the centre, 1 at the edge
    float px = 2.0 / max(v_size, 1.0);           // one pixel in these units
    float alpha = 1.0 - smoothstep(1.0 - px, 1.0, r);
    if (alpha <= 0.0)
        discard;
    if (v_selected != 0) {
        float ring = smoothstep(1.0 - 3.5 * px, 1.0 - 2.5 * px, r);
        o_color = vec4(mix(v_color, vec3(0.95), ring), alpha);
        return;
    }
    float rim = smoothstep(1.0 - 2.5 * px, 1.0 - 1.0 * px, r);
    o_color = vec4(mix(v_color, v_color * 0.45, rim), alpha);
}
