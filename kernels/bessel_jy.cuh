// J0, J1, Y0, Y1 in double: musl's (FreeBSD's) algorithms, transliterated from the `libm`
// crate's j0.rs and j1.rs (MIT), which the CPU uses, so both devices compute the same values.
// CUDA's own j0/y0 are 5e-14 off beyond 8 and give j0(0) = 1 - 2^-53.
__device__ double j0_pzero(double x);
__device__ double j0_qzero(double x);
__device__ double j1_pone(double x);
__device__ double j1_qone(double x);
// The asymptotic factors P and Q of J and Y beyond 2 (musl's pzero/qzero/pone/qone): one
// rational function of 1/x² on each of four intervals of x, from its order's tables.
__device__ __forceinline__ int jy_interval(double x) {
    unsigned ix = (unsigned)((unsigned long long)__double_as_longlong(x) >> 32) & 0x7fffffff;
    return ix >= 0x40200000 ? 0 : ix >= 0x40122E8B ? 1 : ix >= 0x4006DB6D ? 2 : 3;
}
__device__ double jy_p(double x, const double* p, const double* q) {
    double z = 1.0 / (x * x);
    double r = p[0] + z * (p[1] + z * (p[2] + z * (p[3] + z * (p[4] + z * p[5]))));
    double s = 1.0 + z * (q[0] + z * (q[1] + z * (q[2] + z * (q[3] + z * q[4]))));
    return 1.0 + r / s;
}
__device__ double jy_q(double x, const double* p, const double* q, double c) {
    double z = 1.0 / (x * x);
    double r = p[0] + z * (p[1] + z * (p[2] + z * (p[3] + z * (p[4] + z * p[5]))));
    double s = 1.0 + z * (q[0] + z * (q[1] + z * (q[2] + z * (q[3] + z * (q[4] + z * q[5])))));
    return (c + r / s) / x;
}
#define j0_INVSQRTPI (5.64189583547756279280e-01)
#define j0_TPI (6.36619772367581382433e-01)
__device__ __noinline__ double j0_common(unsigned ix, double x, bool is_y0) {
    double s;
    double c;
    double ss;
    double cc;
    double z;
    s = sin(x);
    c = cos(x);
    if (is_y0) {
        c = -c;
    }
    cc = s + c;
    if (ix < 0x7fe00000) {
        ss = s - c;
        z = -cos(2.0 * x);
        if (s * c < 0.0) {
            cc = z / ss;
        } else {
            ss = z / cc;
        }
        if (ix < 0x48000000) {
            if (is_y0) {
                ss = -ss;
            }
            cc = j0_pzero(x) * cc - j0_qzero(x) * ss;
        }
    }
    return j0_INVSQRTPI * cc / sqrt(x);
}
#define j0_R02 (1.56249999999999947958e-02)
#define j0_R03 (-1.89979294238854721751e-04)
#define j0_R04 (1.82954049532700665670e-06)
#define j0_R05 (-4.61832688532103189199e-09)
#define j0_S01 (1.56191029464890010492e-02)
#define j0_S02 (1.16926784663337450260e-04)
#define j0_S03 (5.13546550207318111446e-07)
#define j0_S04 (1.16614003333790000205e-09)
__device__ __noinline__ double bessel_j0_d(double x) {
    double z;
    double r;
    double s;
    unsigned ix;
    ix = (unsigned)((unsigned long long)__double_as_longlong(x) >> 32);
    ix &= 0x7fffffff;
    if (ix >= 0x7ff00000) {
        return 1.0 / (x * x);
    }
    x = fabs(x);
    if (ix >= 0x40000000) {
        return j0_common(ix, x, false);
    }
    if (ix >= 0x3f200000) {
        z = x * x;
        r = z * (j0_R02 + z * (j0_R03 + z * (j0_R04 + z * j0_R05)));
        s = 1.0 + z * (j0_S01 + z * (j0_S02 + z * (j0_S03 + z * j0_S04)));
        return (1.0 + x / 2.0) * (1.0 - x / 2.0) + z * (r / s);
    }
    if (ix >= 0x38000000) {
        x = 0.25 * x * x;
    }
    return 1.0 - x;
}
#define j0_U00 (-7.38042951086872317523e-02)
#define j0_U01 (1.76666452509181115538e-01)
#define j0_U02 (-1.38185671945596898896e-02)
#define j0_U03 (3.47453432093683650238e-04)
#define j0_U04 (-3.81407053724364161125e-06)
#define j0_U05 (1.95590137035022920206e-08)
#define j0_U06 (-3.98205194132103398453e-11)
#define j0_V01 (1.27304834834123699328e-02)
#define j0_V02 (7.60068627350353253702e-05)
#define j0_V03 (2.59150851840457805467e-07)
#define j0_V04 (4.41110311332675467403e-10)
__device__ __noinline__ double bessel_y0_d(double x) {
    double z;
    double u;
    double v;
    unsigned ix;
    unsigned lx;
    ix = (unsigned)((unsigned long long)__double_as_longlong(x) >> 32);
    lx = (unsigned)(unsigned long long)__double_as_longlong(x);
    if (((ix << 1) | lx) == 0) {
        return -1.0 / 0.0;
    }
    if ((ix >> 31) != 0) {
        return 0.0 / 0.0;
    }
    if (ix >= 0x7ff00000) {
        return 1.0 / x;
    }
    if (ix >= 0x40000000) {
        return j0_common(ix, x, true);
    }
    if (ix >= 0x3e400000) {
        z = x * x;
        u = j0_U00 + z * (j0_U01 + z * (j0_U02 + z * (j0_U03 + z * (j0_U04 + z * (j0_U05 + z * j0_U06)))));
        v = 1.0 + z * (j0_V01 + z * (j0_V02 + z * (j0_V03 + z * j0_V04)));
        return u / v + j0_TPI * (bessel_j0_d(x) * log(x));
    }
    return j0_U00 + j0_TPI * log(x);
}
__device__ const double j0_PR8[6] = {
    0.00000000000000000000e+00,  
    -7.03124999999900357484e-02, 
    -8.08167041275349795626e+00, 
    -2.57063105679704847262e+02, 
    -2.48521641009428822144e+03, 
    -5.25304380490729545272e+03, 
};
__device__ const double j0_PS8[5] = {
    1.16534364619668181717e+02, 
    3.83374475364121826715e+03, 
    4.05978572648472545552e+04, 
    1.16752972564375915681e+05, 
    4.76277284146730962675e+04, 
};
__device__ const double j0_PR5[6] = {
    -1.14125464691894502584e-11, 
    -7.03124940873599280078e-02, 
    -4.15961064470587782438e+00, 
    -6.76747652265167261021e+01, 
    -3.31231299649172967747e+02, 
    -3.46433388365604912451e+02, 
};
__device__ const double j0_PS5[5] = {
    6.07539382692300335975e+01, 
    1.05125230595704579173e+03, 
    5.97897094333855784498e+03, 
    9.62544514357774460223e+03, 
    2.40605815922939109441e+03, 
};
__device__ const double j0_PR3[6] = {
    -2.54704601771951915620e-09, 
    -7.03119616381481654654e-02, 
    -2.40903221549529611423e+00, 
    -2.19659774734883086467e+01, 
    -5.80791704701737572236e+01, 
    -3.14479470594888503854e+01, 
};
__device__ const double j0_PS3[5] = {
    3.58560338055209726349e+01, 
    3.61513983050303863820e+02, 
    1.19360783792111533330e+03, 
    1.12799679856907414432e+03, 
    1.73580930813335754692e+02, 
};
__device__ const double j0_PR2[6] = {
    -8.87534333032526411254e-08, 
    -7.03030995483624743247e-02, 
    -1.45073846780952986357e+00, 
    -7.63569613823527770791e+00, 
    -1.11931668860356747786e+01, 
    -3.23364579351335335033e+00, 
};
__device__ const double j0_PS2[5] = {
    2.22202997532088808441e+01, 
    1.36206794218215208048e+02, 
    2.70470278658083486789e+02, 
    1.53875394208320329881e+02, 
    1.46576176948256193810e+01, 
};
__device__ double j0_pzero(double x) {
    switch (jy_interval(x)) {
    case 0: return jy_p(x, j0_PR8, j0_PS8);
    case 1: return jy_p(x, j0_PR5, j0_PS5);
    case 2: return jy_p(x, j0_PR3, j0_PS3);
    default: return jy_p(x, j0_PR2, j0_PS2);
    }
}
__device__ const double j0_QR8[6] = {
    0.00000000000000000000e+00, 
    7.32421874999935051953e-02, 
    1.17682064682252693899e+01, 
    5.57673380256401856059e+02, 
    8.85919720756468632317e+03, 
    3.70146267776887834771e+04, 
};
__device__ const double j0_QS8[6] = {
    1.63776026895689824414e+02,  
    8.09834494656449805916e+03,  
    1.42538291419120476348e+05,  
    8.03309257119514397345e+05,  
    8.40501579819060512818e+05,  
    -3.43899293537866615225e+05, 
};
__device__ const double j0_QR5[6] = {
    1.84085963594515531381e-11, 
    7.32421766612684765896e-02, 
    5.83563508962056953777e+00, 
    1.35111577286449829671e+02, 
    1.02724376596164097464e+03, 
    1.98997785864605384631e+03, 
};
__device__ const double j0_QS5[6] = {
    8.27766102236537761883e+01,  
    2.07781416421392987104e+03,  
    1.88472887785718085070e+04,  
    5.67511122894947329769e+04,  
    3.59767538425114471465e+04,  
    -5.35434275601944773371e+03, 
};
__device__ const double j0_QR3[6] = {
    4.37741014089738620906e-09, 
    7.32411180042911447163e-02, 
    3.34423137516170720929e+00, 
    4.26218440745412650017e+01, 
    1.70808091340565596283e+02, 
    1.66733948696651168575e+02, 
};
__device__ const double j0_QS3[6] = {
    4.87588729724587182091e+01,  
    7.09689221056606015736e+02,  
    3.70414822620111362994e+03,  
    6.46042516752568917582e+03,  
    2.51633368920368957333e+03,  
    -1.49247451836156386662e+02, 
};
__device__ const double j0_QR2[6] = {
    1.50444444886983272379e-07, 
    7.32234265963079278272e-02, 
    1.99819174093815998816e+00, 
    1.44956029347885735348e+01, 
    3.16662317504781540833e+01, 
    1.62527075710929267416e+01, 
};
__device__ const double j0_QS2[6] = {
    3.03655848355219184498e+01,  
    2.69348118608049844624e+02,  
    8.44783757595320139444e+02,  
    8.82935845112488550512e+02,  
    2.12666388511798828631e+02,  
    -5.31095493882666946917e+00, 
};
__device__ double j0_qzero(double x) {
    switch (jy_interval(x)) {
    case 0: return jy_q(x, j0_QR8, j0_QS8, -0.125);
    case 1: return jy_q(x, j0_QR5, j0_QS5, -0.125);
    case 2: return jy_q(x, j0_QR3, j0_QS3, -0.125);
    default: return jy_q(x, j0_QR2, j0_QS2, -0.125);
    }
}


#define j1_INVSQRTPI (5.64189583547756279280e-01)
#define j1_TPI (6.36619772367581382433e-01)
__device__ __noinline__ double j1_common(unsigned ix, double x, bool is_y1, bool sign) {
    double z;
    double s;
    double c;
    double ss;
    double cc;
    s = sin(x);
    if (is_y1) {
        s = -s;
    }
    c = cos(x);
    cc = s - c;
    if (ix < 0x7fe00000) {
        ss = -s - c;
        z = cos(2.0 * x);
        if (s * c > 0.0) {
            cc = z / ss;
        } else {
            ss = z / cc;
        }
        if (ix < 0x48000000) {
            if (is_y1) {
                ss = -ss;
            }
            cc = j1_pone(x) * cc - j1_qone(x) * ss;
        }
    }
    if (sign) {
        cc = -cc;
    }
    return j1_INVSQRTPI * cc / sqrt(x);
}
#define j1_R00 (-6.25000000000000000000e-02)
#define j1_R01 (1.40705666955189706048e-03)
#define j1_R02 (-1.59955631084035597520e-05)
#define j1_R03 (4.96727999609584448412e-08)
#define j1_S01 (1.91537599538363460805e-02)
#define j1_S02 (1.85946785588630915560e-04)
#define j1_S03 (1.17718464042623683263e-06)
#define j1_S04 (5.04636257076217042715e-09)
#define j1_S05 (1.23542274426137913908e-11)
__device__ __noinline__ double bessel_j1_d(double x) {
    double z;
    double r;
    double s;
    unsigned ix;
    bool sign;
    ix = (unsigned)((unsigned long long)__double_as_longlong(x) >> 32);
    sign = (ix >> 31) != 0;
    ix &= 0x7fffffff;
    if (ix >= 0x7ff00000) {
        return 1.0 / (x * x);
    }
    if (ix >= 0x40000000) {
        return j1_common(ix, fabs(x), false, sign);
    }
    if (ix >= 0x38000000) {
        z = x * x;
        r = z * (j1_R00 + z * (j1_R01 + z * (j1_R02 + z * j1_R03)));
        s = 1.0 + z * (j1_S01 + z * (j1_S02 + z * (j1_S03 + z * (j1_S04 + z * j1_S05))));
        z = r / s;
    } else {
        z = x;
    }
    return (0.5 + z) * x;
}
__device__ const double j1_U0[5] = {
    -1.96057090646238940668e-01, 
    5.04438716639811282616e-02,  
    -1.91256895875763547298e-03, 
    2.35252600561610495928e-05,  
    -9.19099158039878874504e-08, 
};
__device__ const double j1_V0[5] = {
    1.99167318236649903973e-02, 
    2.02552581025135171496e-04, 
    1.35608801097516229404e-06, 
    6.22741452364621501295e-09, 
    1.66559246207992079114e-11, 
};
__device__ __noinline__ double bessel_y1_d(double x) {
    double z;
    double u;
    double v;
    unsigned ix;
    unsigned lx;
    ix = (unsigned)((unsigned long long)__double_as_longlong(x) >> 32);
    lx = (unsigned)(unsigned long long)__double_as_longlong(x);
    if ((((ix << 1) | lx)) == 0) {
        return -1.0 / 0.0;
    }
    if ((ix >> 31) != 0) {
        return 0.0 / 0.0;
    }
    if (ix >= 0x7ff00000) {
        return 1.0 / x;
    }
    if (ix >= 0x40000000) {
        return j1_common(ix, x, true, false);
    }
    if (ix < 0x3c900000) {
        return -j1_TPI / x;
    }
    z = x * x;
    u = j1_U0[0] + z * (j1_U0[1] + z * (j1_U0[2] + z * (j1_U0[3] + z * j1_U0[4])));
    v = 1.0 + z * (j1_V0[0] + z * (j1_V0[1] + z * (j1_V0[2] + z * (j1_V0[3] + z * j1_V0[4]))));
    return x * (u / v) + j1_TPI * (bessel_j1_d(x) * log(x) - 1.0 / x);
}
__device__ const double j1_PR8[6] = {
    0.00000000000000000000e+00, 
    1.17187499999988647970e-01, 
    1.32394806593073575129e+01, 
    4.12051854307378562225e+02, 
    3.87474538913960532227e+03, 
    7.91447954031891731574e+03, 
};
__device__ const double j1_PS8[5] = {
    1.14207370375678408436e+02, 
    3.65093083420853463394e+03, 
    3.69562060269033463555e+04, 
    9.76027935934950801311e+04, 
    3.08042720627888811578e+04, 
};
__device__ const double j1_PR5[6] = {
    1.31990519556243522749e-11, 
    1.17187493190614097638e-01, 
    6.80275127868432871736e+00, 
    1.08308182990189109773e+02, 
    5.17636139533199752805e+02, 
    5.28715201363337541807e+02, 
};
__device__ const double j1_PS5[5] = {
    5.92805987221131331921e+01, 
    9.91401418733614377743e+02, 
    5.35326695291487976647e+03, 
    7.84469031749551231769e+03, 
    1.50404688810361062679e+03, 
};
__device__ const double j1_PR3[6] = {
    3.02503916137373618024e-09, 
    1.17186865567253592491e-01, 
    3.93297750033315640650e+00, 
    3.51194035591636932736e+01, 
    9.10550110750781271918e+01, 
    4.85590685197364919645e+01, 
};
__device__ const double j1_PS3[5] = {
    3.47913095001251519989e+01, 
    3.36762458747825746741e+02, 
    1.04687139975775130551e+03, 
    8.90811346398256432622e+02, 
    1.03787932439639277504e+02, 
};
__device__ const double j1_PR2[6] = {
    1.07710830106873743082e-07, 
    1.17176219462683348094e-01, 
    2.36851496667608785174e+00, 
    1.22426109148261232917e+01, 
    1.76939711271687727390e+01, 
    5.07352312588818499250e+00, 
};
__device__ const double j1_PS2[5] = {
    2.14364859363821409488e+01, 
    1.25290227168402751090e+02, 
    2.32276469057162813669e+02, 
    1.17679373287147100768e+02, 
    8.36463893371618283368e+00, 
};
__device__ double j1_pone(double x) {
    switch (jy_interval(x)) {
    case 0: return jy_p(x, j1_PR8, j1_PS8);
    case 1: return jy_p(x, j1_PR5, j1_PS5);
    case 2: return jy_p(x, j1_PR3, j1_PS3);
    default: return jy_p(x, j1_PR2, j1_PS2);
    }
}
__device__ const double j1_QR8[6] = {
    0.00000000000000000000e+00,  
    -1.02539062499992714161e-01, 
    -1.62717534544589987888e+01, 
    -7.59601722513950107896e+02, 
    -1.18498066702429587167e+04, 
    -4.84385124285750353010e+04, 
};
__device__ const double j1_QS8[6] = {
    1.61395369700722909556e+02,  
    7.82538599923348465381e+03,  
    1.33875336287249578163e+05,  
    7.19657723683240939863e+05,  
    6.66601232617776375264e+05,  
    -2.94490264303834643215e+05, 
};
__device__ const double j1_QR5[6] = {
    -2.08979931141764104297e-11, 
    -1.02539050241375426231e-01, 
    -8.05644828123936029840e+00, 
    -1.83669607474888380239e+02, 
    -1.37319376065508163265e+03, 
    -2.61244440453215656817e+03, 
};
__device__ const double j1_QS5[6] = {
    8.12765501384335777857e+01,  
    1.99179873460485964642e+03,  
    1.74684851924908907677e+04,  
    4.98514270910352279316e+04,  
    2.79480751638918118260e+04,  
    -4.71918354795128470869e+03, 
};
__device__ const double j1_QR3[6] = {
    -5.07831226461766561369e-09, 
    -1.02537829820837089745e-01, 
    -4.61011581139473403113e+00, 
    -5.78472216562783643212e+01, 
    -2.28244540737631695038e+02, 
    -2.19210128478909325622e+02, 
};
__device__ const double j1_QS3[6] = {
    4.76651550323729509273e+01,  
    6.73865112676699709482e+02,  
    3.38015286679526343505e+03,  
    5.54772909720722782367e+03,  
    1.90311919338810798763e+03,  
    -1.35201191444307340817e+02, 
};
__device__ const double j1_QR2[6] = {
    -1.78381727510958865572e-07, 
    -1.02517042607985553460e-01, 
    -2.75220568278187460720e+00, 
    -1.96636162643703720221e+01, 
    -4.23253133372830490089e+01, 
    -2.13719211703704061733e+01, 
};
__device__ const double j1_QS2[6] = {
    2.95333629060523854548e+01,  
    2.52981549982190529136e+02,  
    7.57502834868645436472e+02,  
    7.39393205320467245656e+02,  
    1.55949003336666123687e+02,  
    -4.95949898822628210127e+00, 
};
__device__ double j1_qone(double x) {
    switch (jy_interval(x)) {
    case 0: return jy_q(x, j1_QR8, j1_QS8, 0.375);
    case 1: return jy_q(x, j1_QR5, j1_QS5, 0.375);
    case 2: return jy_q(x, j1_QR3, j1_QS3, 0.375);
    default: return jy_q(x, j1_QR2, j1_QS2, 0.375);
    }
}
